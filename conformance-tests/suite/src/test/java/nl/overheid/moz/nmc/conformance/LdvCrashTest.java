package nl.overheid.moz.nmc.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.process.NmcProcess;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestLdv;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The NMC process killed with SIGKILL right after the LDV store acknowledged a send's record and before the send: a
 * trigger on {@code poging} holds the transaction that marks the attempt as requested (the step between the record
 * and the POST) until the process is gone. The record stands; after the restart the send happens once, and exactly
 * one more record describes it (the first names a call that never came: a crash leaves no ERROR record behind).
 */
@Tag("faults")
class LdvCrashTest {

    private static final Duration START = Duration.ofSeconds(90);
    private static final String SEND_RECORD = "nmc.notifynl.email-versturen";

    @Test
    void killedBetweenTheRecordAndTheCallTheRecordStandsAndTheCallHappensOnceAfterTheRestart() {
        long began = System.nanoTime();
        try (FaultRig rig = new FaultRig("ldv-crash", TestDatabase.separate())) {
            NmcProcess nmc = rig.nmc("nmc");
            nmc.start();
            nmc.awaitHealthy(START);
            TestLdv ldv = TestLdv.get();
            ldv.stampInserts();
            // the attempt marked requested (after the record, before the POST) waits: the moment to kill
            rig.database.execute(
                    "CREATE FUNCTION test_hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(20);"
                            + " RETURN NEW; END $$",
                    null);
            rig.database.execute(
                    "CREATE TRIGGER test_hold BEFORE UPDATE ON poging FOR EACH ROW WHEN (OLD.verzoek_gedaan_op IS NULL"
                            + " AND NEW.verzoek_gedaan_op IS NOT NULL) EXECUTE FUNCTION test_hold()",
                    null);

            Http http = new Http(nmc.baseUrl(), nmc.managementUrl());
            Http.Response accepted = http.post(
                    "/api/nmc/v1/decentraal/notificaties",
                    rig.iam.token(TestNmc.DV_A),
                    Http.json(Map.of(
                            "dvRef",
                            "ldv-crash-" + UUID.randomUUID(),
                            "berichttype",
                            TestNmc.BERICHTTYPE,
                            "emailadres",
                            "ldv-crash@example.nl")));
            assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
            UUID id = UUID.fromString(accepted.json().path("id").asText());
            String traceId = rig.database
                    .query("SELECT trace_id FROM notificatie WHERE id = ?", id)
                    .getFirst();

            FaultRig.await(
                    Duration.ofSeconds(30),
                    "the send's record stored",
                    () -> ldv.rows(traceId).stream().anyMatch(r -> r.name().equals(SEND_RECORD)));
            FaultRig.pause(Duration.ofMillis(500));
            assertThat(posts(rig)).as("held between the record and the call").isEmpty();
            TestLdv.Row first = sendRecords(ldv, traceId).getFirst();

            nmc.kill();
            // the killed process's transaction still sleeps in its backend, holding the notification's lock
            rig.database.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                            + " AND pid <> pg_backend_pid()",
                    null);
            rig.database.execute("DROP TRIGGER test_hold ON poging", null);
            assertThat(sendRecords(ldv, traceId)).as("the record stands").containsExactly(first);
            assertThat(posts(rig)).as("no call before the restart").isEmpty();

            nmc.start();
            nmc.awaitHealthy(START);
            FaultRig.await(
                    Duration.ofSeconds(60),
                    "definitief-bezorgd after the restart",
                    () -> rig.database
                            .query("SELECT status FROM notificatie WHERE id = ?", id)
                            .getFirst()
                            .equals("definitief-bezorgd"));

            List<ServeEvent> sends = posts(rig);
            assertThat(sends).as("the call happens once").hasSize(1);
            List<TestLdv.Row> records = sendRecords(ldv, traceId);
            assertThat(records)
                    .as("the record that stands, and exactly one more")
                    .hasSize(2);
            assertThat(records.get(0)).isEqualTo(first);
            assertThat(sends.getFirst().getRequest().getHeader("traceparent"))
                    .as("the call is the one the second record describes")
                    .isEqualTo("00-" + traceId + "-" + records.get(1).spanId() + "-01");
            assertThat(rig.parties.notifyNl.sentNotifications()).hasSize(1);
            LdvRecords.Checked checked = LdvRecords.assertEveryCallRecordedFirst(rig.parties, List.of());

            Map<String, Object> figures = new LinkedHashMap<>();
            figures.put("recordsOfTheSend", records.size());
            figures.put("sends", sends.size());
            figures.put("callsChecked", checked.calls());
            figures.put("duration", FaultRig.seconds(Duration.ofNanos(System.nanoTime() - began)));
            FaultRig.report("ldv-crash", figures);
        }
    }

    private static List<ServeEvent> posts(FaultRig rig) {
        return rig.parties.notifyNl.wireMock().getAllServeEvents().stream()
                .filter(e -> e.getRequest().getMethod().getName().equals("POST")
                        && e.getRequest().getUrl().startsWith("/v2/notifications/email"))
                .toList();
    }

    private static List<TestLdv.Row> sendRecords(TestLdv ldv, String traceId) {
        return ldv.rows(traceId).stream()
                .filter(r -> r.name().equals(SEND_RECORD))
                .toList();
    }
}
