package nl.overheid.moz.nmc.flow;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;

/**
 * Group commit of single acceptances (design §4): requests of one DV that arrive while a group is being written
 * are written together, and each member ends exactly as it would have alone. A group is made deterministic by
 * holding the first request inside its insert (a table lock the test holds) until the others wait behind it, as
 * the {@code nmc_acceptance_group_waiting} gauge shows; released, the first is written alone and the others as
 * one group.
 */
class GroupCommitAcceptanceTest extends LifecycleTestBase {

    private static final String DECENTRAAL = "/api/nmc/v1/decentraal/notificaties";

    private static Map<String, Object> body(String dvRef, String batchId) {
        Map<String, Object> body = new HashMap<>(Map.of(
                "dvRef",
                dvRef,
                "berichttype",
                TestNmc.BERICHTTYPE,
                "emailadres",
                EMAIL,
                "personalisation",
                Map.of("tekst", SECRET_TEXT)));
        if (batchId != null) {
            body.put("batchId", batchId);
        }
        return body;
    }

    private Http.Response post(String token, Map<String, Object> body) {
        return http.post(DECENTRAAL, token, Http.json(body));
    }

    private double metric(String name) {
        return http.metric(name).orElse(0);
    }

    /**
     * Sends {@code first} and holds it inside its insert, sends {@code members} meanwhile, waits until they all
     * wait for their group, then lets everything through; the answers of the members in their order.
     */
    private List<Http.Response> asOneGroup(String token, Map<String, Object> first, List<Map<String, Object>> members)
            throws Exception {
        double groupsBefore = metric("nmc_acceptance_groups_total");
        ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
        try (Connection lock = DB.connect()) {
            lock.setAutoCommit(false);
            try (Statement s = lock.createStatement()) {
                s.execute("LOCK TABLE notificatie IN SHARE ROW EXCLUSIVE MODE");
            }
            Future<Http.Response> held = clients.submit(() -> post(token, first));
            awaitTrue(() -> Integer.parseInt(query(
                                    "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'notificatie'::regclass",
                                    null)
                            .getFirst())
                    == 1);
            List<Future<Http.Response>> answers = new ArrayList<>();
            for (Map<String, Object> member : members) {
                answers.add(clients.submit(() -> post(token, member)));
                // one at a time: the group keeps the order its members queued in, which the assertions name
                int queued = answers.size();
                awaitTrue(() -> metric("nmc_acceptance_group_waiting") == queued);
            }
            lock.commit();
            held.get();
            List<Http.Response> result = new ArrayList<>();
            for (Future<Http.Response> answer : answers) {
                result.add(answer.get());
            }
            assertThat(metric("nmc_acceptance_groups_total") - groupsBefore)
                    .as("the first alone, then the others as one group")
                    .isEqualTo(2);
            return result;
        } finally {
            clients.shutdownNow();
        }
    }

    private static void awaitTrue(java.util.function.BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                throw new AssertionError("not reached within 20 s");
            }
            Thread.sleep(20);
        }
    }

    private static String id(Http.Response response) {
        return response.json().path("id").asText();
    }

    private static long count(String sql) {
        return Long.parseLong(query(sql, null).getFirst());
    }

    @Test
    void aRepeatOfAMemberInItsOwnGroupGetsThatMembersNotificationAndTakesNoQuota() throws Exception {
        List<Http.Response> answers = asOneGroup(
                tokenA(),
                body("eerste", null),
                List.of(body("herhaald", null), body("ander", null), body("herhaald", "andere-batch")));

        assertThat(answers).allSatisfy(a -> assertThat(a.status()).as(a.body()).isEqualTo(202));
        assertThat(id(answers.get(2)))
                .as("a repeat under another batch id is the same notification")
                .isEqualTo(id(answers.get(0)));
        assertThat(id(answers.get(1))).isNotEqualTo(id(answers.get(0)));
        assertThat(count("SELECT count(*) FROM notificatie")).isEqualTo(3);
        assertThat(count("SELECT coalesce(sum(aantal), 0) FROM aannameteller"))
                .as("three notifications, three slots: the repeat's was given back")
                .isEqualTo(3);
        assertThat(post(tokenA(), body("herhaald", null)).json().path("id").asText())
                .as("a later repeat, alone, finds the same one")
                .isEqualTo(id(answers.get(0)));
    }

    @Test
    void membersOverTheQuotaAreRefusedAsAloneAndTheOthersAccepted() throws Exception {
        // DV_SMALL_QUOTA may accept 2 a minute: the held first takes one, the group's first new member the other.
        String token = IAM.token(TestNmc.DV_SMALL_QUOTA, clock.instant());
        List<Http.Response> answers = asOneGroup(
                token,
                body("klein-1", null),
                List.of(body("klein-2", null), body("klein-3", null), body("klein-2", null), body("klein-4", null)));

        assertThat(answers.get(0).status()).as(answers.get(0).body()).isEqualTo(202);
        assertThat(answers.get(1).status()).isEqualTo(429);
        assertThat(answers.get(1).header("Retry-After")).isPresent();
        assertThat(answers.get(2).status()).as("a repeat of an accepted member").isEqualTo(202);
        assertThat(id(answers.get(2))).isEqualTo(id(answers.get(0)));
        assertThat(answers.get(3).status()).isEqualTo(429);
        assertThat(count("SELECT count(*) FROM notificatie")).isEqualTo(2);
        assertThat(count("SELECT coalesce(sum(aantal), 0) FROM aannameteller")).isEqualTo(2);
        // alone, the same requests end the same
        assertThat(post(token, body("klein-3", null)).status()).isEqualTo(429);
        assertThat(post(token, body("klein-2", null)).json().path("id").asText())
                .isEqualTo(id(answers.get(0)));
    }

    /**
     * A group takes its quota slots as the first statement of its own transaction (a round trip fewer than a take of
     * its own, and a rollback gives them back): the counter's row was last written by the transaction that wrote the
     * group's notifications and events.
     */
    @Test
    void aGroupTakesItsQuotaSlotsInTheTransactionThatStoresIt() throws Exception {
        List<Http.Response> answers =
                asOneGroup(tokenA(), body("eerste", null), List.of(body("tweede", null), body("derde", null)));
        assertThat(answers).allSatisfy(a -> assertThat(a.status()).as(a.body()).isEqualTo(202));

        List<String> counters = query("SELECT xmin::text FROM aannameteller", null);
        Set<String> storing = new HashSet<>(query("SELECT DISTINCT xmin::text FROM event", null));
        assertThat(counters).isNotEmpty();
        assertThat(storing)
                .as("each counter row written by a transaction that also wrote notifications' events")
                .containsAll(counters);
        assertThat(count("SELECT coalesce(sum(aantal), 0) FROM aannameteller")).isEqualTo(3);
    }

    /** A constraint (the test's own) a member's row violates: alone it gets what it got alone; the others pass. */
    @Test
    void aMemberThatViolatesAConstraintFailsAloneAndTheOthersAreAccepted() throws Exception {
        sql(
                "ALTER TABLE notificatie ADD CONSTRAINT test_weigert CHECK (batch_id IS DISTINCT FROM 'weigert') NOT VALID");
        try {
            Http.Response lone = post(tokenA(), body("alleen", "weigert"));
            assertThat(lone.status()).isNotEqualTo(202);
            double fallbacks = metric("nmc_acceptance_group_fallbacks_total");

            List<Http.Response> answers = asOneGroup(
                    tokenA(),
                    body("eerste", null),
                    List.of(body("goed-1", null), body("fout", "weigert"), body("goed-2", null)));

            assertThat(answers.get(1).status()).as("as alone").isEqualTo(lone.status());
            assertThat(answers.get(1).contentType()).isEqualTo(lone.contentType());
            assertThat(answers.get(0).status()).isEqualTo(202);
            assertThat(answers.get(2).status()).isEqualTo(202);
            assertThat(metric("nmc_acceptance_group_fallbacks_total") - fallbacks)
                    .isEqualTo(1);
            assertThat(count("SELECT count(*) FROM notificatie")).isEqualTo(3);
            assertThat(count("SELECT count(*) FROM taak WHERE soort = 'verzenden'"))
                    .isEqualTo(3);
            assertThat(count("SELECT coalesce(sum(aantal), 0) FROM aannameteller"))
                    .as("the failed member's slot given back, the group's given back before its fallback")
                    .isEqualTo(3);
        } finally {
            sql("ALTER TABLE notificatie DROP CONSTRAINT test_weigert");
        }
    }

    /** A commit the database refuses (a deferred trigger of the test's own fires at commit for one member). */
    @Test
    void aCommitThatFailsForOneMemberFailsOnlyThatMember() throws Exception {
        sql(
                "CREATE FUNCTION test_commit_faalt() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " IF NEW.batch_id = 'commit-faalt' THEN RAISE EXCEPTION 'commit refused'; END IF; RETURN NULL; END $$");
        sql("CREATE CONSTRAINT TRIGGER test_commit_faalt AFTER INSERT ON notificatie DEFERRABLE INITIALLY DEFERRED"
                + " FOR EACH ROW EXECUTE FUNCTION test_commit_faalt()");
        try {
            Http.Response lone = post(tokenA(), body("alleen", "commit-faalt"));
            assertThat(lone.status()).isNotEqualTo(202);
            assertThat(count("SELECT count(*) FROM notificatie")).isZero();

            List<Http.Response> answers = asOneGroup(
                    tokenA(),
                    body("eerste", null),
                    List.of(body("goed-1", null), body("faalt", "commit-faalt"), body("goed-2", null)));

            assertThat(answers.get(1).status()).as("as alone").isEqualTo(lone.status());
            assertThat(answers.get(0).status()).isEqualTo(202);
            assertThat(answers.get(2).status()).isEqualTo(202);
            assertThat(count("SELECT count(*) FROM notificatie")).isEqualTo(3);
            assertThat(count("SELECT count(*) FROM event")).isEqualTo(3);
            for (Http.Response accepted : List.of(answers.get(0), answers.get(2))) {
                assertThat(http.get(accepted.header("Location").orElseThrow(), tokenA())
                                .status())
                        .as("202 means stored")
                        .isEqualTo(200);
            }
        } finally {
            sql("DROP TRIGGER test_commit_faalt ON notificatie");
            sql("DROP FUNCTION test_commit_faalt()");
        }
    }

    /**
     * Many clients repeating a few requests at once (seeded): each request is one notification, every answer to it
     * names that one, and the quota counts each once.
     */
    @Test
    void concurrentRepeatsInGroupsYieldOneNotificationPerRequestAndCountOnce() throws Exception {
        Random random = new Random(20_20);
        int distinct = 12;
        List<String> sent = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            sent.add("herhaling-" + random.nextInt(distinct));
        }
        double membersBefore = metric("nmc_acceptance_group_members_total");
        double groupsBefore = metric("nmc_acceptance_groups_total");
        Map<String, Set<String>> ids = new HashMap<>();
        try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
            List<Future<Http.Response>> answers = new ArrayList<>();
            for (String dvRef : sent) {
                answers.add(clients.submit(() -> post(tokenA(), body(dvRef, null))));
            }
            for (int i = 0; i < sent.size(); i++) {
                Http.Response answer = answers.get(i).get();
                assertThat(answer.status()).as(answer.body()).isEqualTo(202);
                ids.computeIfAbsent(sent.get(i), k -> new HashSet<>()).add(id(answer));
            }
        }
        assertThat(ids.values()).allSatisfy(one -> assertThat(one).hasSize(1));
        assertThat(count("SELECT count(*) FROM notificatie")).isEqualTo(ids.size());
        assertThat(count("SELECT coalesce(sum(aantal), 0) FROM aannameteller")).isEqualTo(ids.size());
        double groups = metric("nmc_acceptance_groups_total") - groupsBefore;
        assertThat(metric("nmc_acceptance_group_members_total") - membersBefore).isEqualTo(sent.size());
        assertThat(groups).as("some requests shared a group").isLessThan(sent.size());
    }
}
