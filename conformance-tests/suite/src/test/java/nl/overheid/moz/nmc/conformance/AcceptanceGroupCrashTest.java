package nl.overheid.moz.nmc.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import nl.overheid.moz.nmc.process.NmcProcess;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The NMC process killed with SIGKILL between a group's commit and its answers: concurrent requests with repeats
 * (seeded) form groups; a group that holds a repeat gives its unused quota slot back after its commit, and a
 * trigger on {@code aannameteller} holds that give-back, so the group is committed and not answered when the
 * process dies. After the restart every request is sent again: each is one notification, a request answered
 * before the kill gets the same one, and a committed but unanswered one is found, not stored twice.
 */
@Tag("faults")
class AcceptanceGroupCrashTest {

    private static final Duration START = Duration.ofSeconds(90);
    private static final String PATH = "/api/nmc/v1/decentraal/notificaties";

    @Test
    void killedBetweenAGroupsCommitAndItsAnswersNothingAcceptedIsLostAndRetriesFindTheirNotification()
            throws Exception {
        long began = System.nanoTime();
        try (FaultRig rig = new FaultRig("acceptance-group-crash", TestDatabase.separate())) {
            NmcProcess nmc = rig.nmc("nmc");
            nmc.start();
            nmc.awaitHealthy(START);
            rig.database.execute(
                    "CREATE FUNCTION test_hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30);"
                            + " RETURN NEW; END $$",
                    null);
            rig.database.execute(
                    "CREATE TRIGGER test_hold BEFORE UPDATE ON aannameteller FOR EACH ROW"
                            + " WHEN (NEW.aantal < OLD.aantal) EXECUTE FUNCTION test_hold()",
                    null);

            Random random = new Random(2020);
            List<String> sent = new ArrayList<>();
            for (int i = 0; i < 60; i++) {
                sent.add("groep-crash-" + random.nextInt(25));
            }
            String token = rig.iam.token(TestNmc.DV_A);
            Http http = new Http(nmc.baseUrl(), nmc.managementUrl());
            Map<Integer, String> answeredBefore = new HashMap<>();
            ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor();
            List<Future<Http.Response>> answers = new ArrayList<>();
            for (String dvRef : sent) {
                answers.add(clients.submit(() -> http.post(PATH, token, Http.json(body(dvRef)))));
            }
            FaultRig.await(
                    Duration.ofSeconds(30),
                    "a group's give-back held after its commit",
                    () -> !rig.database
                            .query(
                                    "SELECT pid FROM pg_stat_activity WHERE wait_event = 'PgSleep'"
                                            + " AND query LIKE '%aannameteller%'",
                                    null)
                            .isEmpty());
            FaultRig.pause(Duration.ofMillis(1000));
            for (int i = 0; i < answers.size(); i++) {
                if (answers.get(i).isDone()) {
                    Http.Response response = answers.get(i).get();
                    assertThat(response.status()).as(response.body()).isEqualTo(202);
                    answeredBefore.put(i, response.json().path("id").asText());
                }
            }
            long storedAtTheKill = count(rig, "SELECT count(*) FROM notificatie");
            long answeredDistinct =
                    answeredBefore.keySet().stream().map(sent::get).distinct().count();

            nmc.kill();
            clients.shutdownNow();
            rig.database.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                            + " AND pid <> pg_backend_pid()",
                    null);
            rig.database.execute("DROP TRIGGER test_hold ON aannameteller", null);
            assertThat(storedAtTheKill)
                    .as("the held group was committed but not answered")
                    .isGreaterThan(answeredDistinct);

            nmc.start();
            nmc.awaitHealthy(START);
            Http again = new Http(nmc.baseUrl(), nmc.managementUrl());
            Map<String, String> idOf = new LinkedHashMap<>();
            for (int i = 0; i < sent.size(); i++) {
                Http.Response response = again.post(PATH, token, Http.json(body(sent.get(i))));
                assertThat(response.status()).as(response.body()).isEqualTo(202);
                String id = response.json().path("id").asText();
                String earlier = idOf.putIfAbsent(sent.get(i), id);
                assertThat(id)
                        .as("every answer to one request names one notification")
                        .isEqualTo(earlier == null ? id : earlier);
                if (answeredBefore.containsKey(i)) {
                    assertThat(id)
                            .as("answered before the kill: the same notification")
                            .isEqualTo(answeredBefore.get(i));
                }
            }
            assertThat(count(rig, "SELECT count(*) FROM notificatie"))
                    .as("one notification per request: nothing accepted lost, nothing stored twice")
                    .isEqualTo(idOf.size());

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("requests", sent.size());
            figures.put("distinct", idOf.size());
            figures.put("answeredBeforeTheKill", answeredBefore.size());
            figures.put("storedAtTheKill", storedAtTheKill);
            figures.put("duration", FaultRig.seconds(Duration.ofNanos(System.nanoTime() - began)));
            FaultRig.report("acceptance-group-crash", figures);
        }
    }

    private static Map<String, Object> body(String dvRef) {
        return Map.of("dvRef", dvRef, "berichttype", TestNmc.BERICHTTYPE, "emailadres", "groep-crash@example.nl");
    }

    private static long count(FaultRig rig, String sql) {
        return Long.parseLong(rig.database.query(sql, null).getFirst());
    }
}
