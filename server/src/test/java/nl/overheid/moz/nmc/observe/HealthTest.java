package nl.overheid.moz.nmc.observe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.RunningNmc;
import nl.overheid.moz.nmc.testing.TcpProxy;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Liveness and readiness at {@code /observe/health/live} and {@code /ready}: readiness goes down while the database
 * is unreachable (through a proxy the test cuts), while the schema does not validate, and while every version of a
 * pepper is compromised; it comes back up when the cause is gone. Liveness stays up throughout. What a DV's call
 * meets while the database is unreachable is here too. On a database of its own, since the test tampers with the
 * schema history.
 */
class HealthTest {

    private static final TestDatabase DB = TestDatabase.separate();
    private static final TestIam IAM = new TestIam();
    private static final MutableClock CLOCK = MutableClock.startingNow();
    private static TcpProxy proxy;
    private static RunningNmc nmc;
    private static Http http;

    @BeforeAll
    static void start() {
        Matcher url =
                Pattern.compile("^jdbc:postgresql://([^:/]+):(\\d+)/(.*)$").matcher(DB.url());
        assertThat(url.matches()).as(DB.url()).isTrue();
        proxy = new TcpProxy(Integer.parseInt(url.group(2)));
        nmc = RunningNmc.start(
                DB,
                IAM,
                CLOCK,
                "db: {url: \"jdbc:postgresql://127.0.0.1:" + proxy.port() + "/" + url.group(3)
                        + "\"}\nobserve: {readiness-timeout: PT1S, schema-check-interval: PT1M, readiness-cache: PT0S}"
                        // the register read at every request, as when its cache has just expired
                        + "\nregister: {cache-ttl: PT0S}");
        http = nmc.http();
    }

    @AfterAll
    static void stop() {
        nmc.close();
        proxy.close();
    }

    @Test
    void readinessIsDownWhileTheDatabaseIsUnreachableAndUpAgainAfter() {
        assertReady("database", true);
        proxy.cut();
        try {
            JsonNode down = assertReady("database", false);
            assertThat(down.toString()).contains("unreachable");
            assertThat(http.get("/observe/health/live", null).status()).isIn(200, 204);
            // A DV's request meets the unreachable database: a 503 problem with Retry-After, never a 500.
            var refused = http.post(
                    "/api/nmc/v1/decentraal/notificaties",
                    IAM.token(nl.overheid.moz.nmc.testing.TestNmc.DV_A, CLOCK.instant()),
                    "{\"dvRef\":\"tijdens-storing\",\"berichttype\":\""
                            + nl.overheid.moz.nmc.testing.TestNmc.BERICHTTYPE
                            + "\",\"emailadres\":\"iemand@example.nl\"}");
            assertThat(refused.status()).isEqualTo(503);
            assertThat(refused.contentType()).startsWith("application/problem+json");
            assertThat(refused.header("Retry-After")).contains("5");
            assertThat(refused.body()).doesNotContain("iemand@example.nl");
            nl.overheid.moz.nmc.api.ContractAnswers.dv()
                    .check(
                            "the database unreachable",
                            "POST",
                            "/decentraal/notificaties",
                            refused.status(),
                            refused.contentType(),
                            refused.json());
        } finally {
            proxy.restore();
        }
        awaitReady();
    }

    /**
     * Found by reading: a bulk call whose later slice met an unreachable database answered 503 "er is niets
     * gewijzigd" while its first slice was committed, so a DV that believed it sent the whole call again, or
     * worse did not. Now its accepted items are answered 202 and the rest 503 each, in a 200; sent again, the
     * call gets the same notifications for the first and stores the rest. The second slice is held in its insert
     * (a trigger of the test's) while the proxy is cut.
     */
    /** A bulk body of 250 decentralised items in one batch. */
    private static String bulk(String batch) {
        StringBuilder body = new StringBuilder("{\"notificaties\":[");
        for (int i = 0; i < 250; i++) {
            body.append(i == 0 ? "" : ",")
                    .append("{\"dvRef\":\"")
                    .append(batch)
                    .append('-')
                    .append(i)
                    .append("\",\"berichttype\":\"")
                    .append(nl.overheid.moz.nmc.testing.TestNmc.BERICHTTYPE)
                    .append("\",\"emailadres\":\"iemand@example.nl\",\"batchId\":\"")
                    .append(batch)
                    .append("\"}");
        }
        return body.append("]}").toString();
    }

    /** Items 0-99 accepted (202), the rest answered 503 without "niets gewijzigd"; returns the accepted ids. */
    private static List<String> firstSliceAcceptedTheRestUnavailable(Http.Response answer) {
        assertThat(answer.status()).as(answer.body()).isEqualTo(200);
        assertThat(answer.header("Retry-After")).contains("5");
        JsonNode results = answer.json().path("resultaten");
        assertThat(results).hasSize(250);
        List<String> first = new java.util.ArrayList<>();
        for (int i = 0; i < 250; i++) {
            JsonNode result = results.get(i);
            assertThat(result.path("status").asInt()).as(i + ": " + result).isEqualTo(i < 100 ? 202 : 503);
            if (i < 100) {
                first.add(result.path("notificatie").path("id").asText());
            } else {
                assertThat(result.path("probleem").path("detail").asText())
                        .as(result.toString())
                        .contains("202 zijn aangenomen")
                        .doesNotContain("niets gewijzigd");
            }
        }
        assertThat(answer.body()).doesNotContain("iemand@example.nl");
        return first;
    }

    /**
     * Found by a second read: the second slice's own checks read the register (its cache expired), outside the
     * handling of a later slice that meets an unreachable database, so the whole call answered 503 "niets gewijzigd"
     * though its first hundred were stored. The register read is held (a lock of the test's on {@code berichttype},
     * taken while the first slice's transaction sleeps) while the proxy is cut.
     */
    @Test
    void aBulkCallThatLosesTheDatabaseInALaterSlicesChecksAnswersEachItem() throws Exception {
        String bulk = bulk("storing-controle");
        String token = IAM.token(nl.overheid.moz.nmc.testing.TestNmc.DV_A, CLOCK.instant());
        DB.execute(
                // after the statement that stored the first slice's hundredth row, in its transaction
                "CREATE FUNCTION test_hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " IF EXISTS (SELECT 1 FROM added WHERE batch_id = 'storing-controle')"
                        + " AND (SELECT count(*) FROM notificatie WHERE batch_id = 'storing-controle') = 100"
                        + " THEN PERFORM pg_sleep(2); END IF; RETURN NULL; END $$;"
                        + " CREATE TRIGGER test_hold AFTER INSERT ON notificatie REFERENCING NEW TABLE AS added"
                        + " FOR EACH STATEMENT EXECUTE FUNCTION test_hold()",
                null);
        Http.Response answer;
        try (java.sql.Connection lock = DB.connect()) {
            var sent = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> http.post("/api/nmc/v1/decentraal/notificaties/bulk", token, bulk));
            awaitActivity("wait_event = 'PgSleep'", "the first slice's transaction held");
            lock.setAutoCommit(false);
            try (var statement = lock.createStatement()) {
                statement.execute("LOCK TABLE berichttype IN ACCESS EXCLUSIVE MODE");
            }
            awaitActivity(
                    "wait_event_type = 'Lock' AND query LIKE '%berichttype%'",
                    "the second slice's register read waiting");
            proxy.cut();
            lock.rollback();
            answer = sent.get(30, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            proxy.restore();
            DB.execute("DROP TRIGGER test_hold ON notificatie; DROP FUNCTION test_hold()", null);
        }
        firstSliceAcceptedTheRestUnavailable(answer);
        awaitReady();
        assertThat(DB.query("SELECT count(*) FROM notificatie WHERE batch_id = 'storing-controle'", null))
                .containsExactly("100");
    }

    private static void awaitActivity(String condition, String what) throws InterruptedException {
        Instant deadline = Instant.now().plusSeconds(20);
        while (DB.query("SELECT count(*) FROM pg_stat_activity WHERE " + condition, null)
                .getFirst()
                .equals("0")) {
            assertThat(Instant.now()).as(what).isBefore(deadline);
            Thread.sleep(10);
        }
    }

    @Test
    void aBulkCallThatLosesTheDatabaseAfterItsFirstSliceAnswersEachItemAndChangesNothingElse() throws Exception {
        String bulk = bulk("storing-bulk");
        String token = IAM.token(nl.overheid.moz.nmc.testing.TestNmc.DV_A, CLOCK.instant());
        DB.execute(
                "CREATE FUNCTION test_hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                        + " IF NEW.batch_id = 'storing-bulk'"
                        + " AND (SELECT count(*) FROM notificatie WHERE batch_id = 'storing-bulk') >= 100"
                        + " THEN PERFORM pg_sleep(3); END IF; RETURN NEW; END $$;"
                        + " CREATE TRIGGER test_hold BEFORE INSERT ON notificatie FOR EACH ROW"
                        + " EXECUTE FUNCTION test_hold()",
                null);
        Http.Response answer;
        try {
            var sent = java.util.concurrent.CompletableFuture.supplyAsync(
                    () -> http.post("/api/nmc/v1/decentraal/notificaties/bulk", token, bulk));
            Instant deadline = Instant.now().plusSeconds(20);
            while (DB.query("SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'", null)
                    .getFirst()
                    .equals("0")) {
                assertThat(Instant.now())
                        .as("the second slice held in its insert")
                        .isBefore(deadline);
                Thread.sleep(20);
            }
            proxy.cut();
            answer = sent.get(30, java.util.concurrent.TimeUnit.SECONDS);
            // the backend of the cut connection would go on sleeping row by row until the statement timeout
            DB.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event = 'PgSleep'", null);
        } finally {
            proxy.restore();
            DB.execute("DROP TRIGGER test_hold ON notificatie; DROP FUNCTION test_hold()", null);
        }
        List<String> first = firstSliceAcceptedTheRestUnavailable(answer);
        awaitReady();
        String stored = "SELECT count(*) FROM notificatie WHERE batch_id = 'storing-bulk'";
        assertThat(DB.query(stored, null)).containsExactly("100");
        // sent again, as a client honouring Retry-After does (a pooled connection the cut broke may answer one more
        // 503 before the pool has replaced it): the first hundred are repeats, the rest are stored now
        Http.Response again = http.post("/api/nmc/v1/decentraal/notificaties/bulk", token, bulk);
        for (int retry = 0; retry < 3 && again.status() == 503; retry++) {
            Thread.sleep(1000L * Long.parseLong(again.header("Retry-After").orElseThrow()));
            again = http.post("/api/nmc/v1/decentraal/notificaties/bulk", token, bulk);
        }
        assertThat(again.status()).as(again.body()).isEqualTo(200);
        for (int i = 0; i < 250; i++) {
            JsonNode result = again.json().path("resultaten").get(i);
            assertThat(result.path("status").asInt()).as(i + ": " + result).isEqualTo(202);
            if (i < 100) {
                assertThat(result.path("notificatie").path("id").asText()).isEqualTo(first.get(i));
            }
        }
        assertThat(DB.query(stored, null)).containsExactly("250");
    }

    @Test
    void readinessIsDownWhileTheSchemaDoesNotValidate() {
        assertReady("schema", true);
        DB.execute("UPDATE flyway_schema_history SET checksum = checksum + 1 WHERE version = '1'", null);
        try {
            CLOCK.advance(Duration.ofMinutes(2));
            assertReady("schema", false);
        } finally {
            DB.execute("UPDATE flyway_schema_history SET checksum = checksum - 1 WHERE version = '1'", null);
        }
        CLOCK.advance(Duration.ofMinutes(2));
        assertReady("schema", true);
    }

    @Test
    void readinessIsDownWhileEveryVersionOfAPepperIsCompromised() {
        assertReady("keys", true);
        DB.execute("INSERT INTO pepper_gecompromitteerd (doel, versie, gemarkeerd_op) VALUES ('ldv', 1, now())", null);
        try {
            // The duty applies what the database says, then refuses (logged each interval); readiness shows it.
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> nmc.nmc().pepperCompromises().refresh())
                    .hasMessageContaining("ldv pepper");
            assertThat(assertReady("keys", false).toString()).contains("privacy.ldv-pepper");
        } finally {
            DB.execute("DELETE FROM pepper_gecompromitteerd", null);
            nmc.nmc().pepperCompromises().refresh();
        }
        assertReady("keys", true);
    }

    @Test
    void readinessAnswersWhileThePoolTheApiAndWorkersShareIsExhausted() throws Exception {
        int poolSize = 8; // TestNmc's db.pool-size
        java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(poolSize);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        List<Thread> holders = new java.util.ArrayList<>();
        for (int i = 0; i < poolSize; i++) {
            holders.add(Thread.ofVirtual()
                    .start(() -> nmc.nmc().database().inTransactionDo(tx -> {
                        held.countDown();
                        try {
                            release.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    })));
        }
        try {
            assertThat(held.await(10, java.util.concurrent.TimeUnit.SECONDS))
                    .as("every pooled connection held")
                    .isTrue();
            CLOCK.advance(Duration.ofMinutes(2)); // the schema is validated again, on the readiness connections too
            assertReady("database", true);
            assertReady("schema", true);
        } finally {
            release.countDown();
            for (Thread holder : holders) {
                holder.join();
            }
        }
    }

    @Test
    void theApiPortHasNoObserveEndpoints() {
        Http api = new Http(http.baseUrl());
        for (String path : List.of("/observe/health", "/observe/health/ready", "/observe/metrics")) {
            Http.Response answer = api.get(path, null);
            assertThat(answer.status()).as(path).isEqualTo(404);
            assertThat(answer.contentType()).startsWith("application/problem+json");
        }
    }

    /** Asserts the readiness status and that check's status; returns the body. */
    private static JsonNode assertReady(String check, boolean up) {
        Http.Response response = http.get("/observe/health/ready", null);
        assertThat(response.status()).as(response.body()).isEqualTo(up ? 200 : 503);
        JsonNode body = response.json();
        JsonNode named = null;
        for (JsonNode each : body.path("checks")) {
            if (each.path("name").asText().equals(check)) {
                named = each;
            }
        }
        assertThat(named).as(check + " in " + body).isNotNull();
        assertThat(named.path("status").asText()).as(body.toString()).isEqualTo(up ? "UP" : "DOWN");
        return body;
    }

    private static void awaitReady() {
        Instant deadline = Instant.now().plusSeconds(20);
        while (http.get("/observe/health/ready", null).status() != 200) {
            assertThat(Instant.now())
                    .as("ready again within 20 s after the database came back")
                    .isBefore(deadline);
            try {
                Thread.sleep(200);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
        assertReady("database", true);
    }
}
