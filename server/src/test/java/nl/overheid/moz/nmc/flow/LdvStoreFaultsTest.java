package nl.overheid.moz.nmc.flow;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.PartiesStub;
import nl.overheid.moz.nmc.testing.TcpProxy;
import nl.overheid.moz.nmc.testing.TestLdv;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The processing log's store failing, every way it can (design §9, fail-closed): down, slow beyond its statement
 * timeout, out of disk, refusing the role (its privilege, or its login), its table dropped. In every case no call is
 * made, no attempt is counted, nothing is lost, the write failure is counted, readiness stays up (the store is needed
 * to send, not to accept), and sending resumes by itself once the store is back. A call that then fails leaves an
 * ERROR record, in the exact order of this process: record, call, ERROR record.
 *
 * <p>"Out of disk" is simulated by a trigger that raises PostgreSQL's {@code disk_full} (SQLSTATE 53100), as a full
 * disk does on an insert; filling a real disk is not practical in a test.
 */
class LdvStoreFaultsTest extends LifecycleTestBase {

    private static final String KVK = "12345670";
    private static final String ADDRESS = "ondernemer.fouten@bedrijf.example";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private TcpProxy proxy;

    @AfterEach
    void healTheStore() {
        TestLdv.get().heal();
        if (proxy != null) {
            proxy.close();
        }
    }

    @Test
    void theStoreDown() {
        proxy = new TcpProxy(
                URI.create(TestLdv.get().url().substring("jdbc:".length())).getPort());
        restartWithConfig("ldv:\n  postgresql:\n    url: \""
                + TestLdv.get().url().replaceFirst(":\\d+/", ":" + proxy.port() + "/") + "\"\n");
        proxy.cut();
        nothingHappensUntilTheStoreIsBack("connection", proxy::restore);
    }

    @Test
    void theStoreSlowBeyondItsStatementTimeout() {
        TestLdv.get().slowInserts(Duration.ofSeconds(3));
        nothingHappensUntilTheStoreIsBack("timeout", TestLdv.get()::heal);
    }

    @Test
    void theStoreOutOfDisk() {
        TestLdv.get().failInserts("53100", "TRUE");
        nothingHappensUntilTheStoreIsBack("disk-full", TestLdv.get()::heal);
    }

    @Test
    void theStoreRefusingTheRolesPrivilege() {
        TestLdv.get().refuseInserts();
        nothingHappensUntilTheStoreIsBack("refused", TestLdv.get()::heal);
    }

    @Test
    void theStoreRefusingTheRolesLogin() {
        TestLdv ldv = TestLdv.get();
        String changed = "changed-" + UUID.randomUUID();
        // the role's password changes under the NMC (a role may change its own) and the connections it holds go:
        // every new one is refused, until the password is the configured one again
        ldv.execute("ALTER ROLE " + ldv.user() + " PASSWORD '" + changed + "'");
        try {
            ldv.executeAs(
                    changed,
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = current_user"
                            + " AND pid <> pg_backend_pid()");
            nothingHappensUntilTheStoreIsBack(
                    "connection",
                    () -> ldv.executeAs(changed, "ALTER ROLE " + ldv.user() + " PASSWORD '" + ldv.password() + "'"));
        } finally {
            try {
                ldv.executeAs(changed, "ALTER ROLE " + ldv.user() + " PASSWORD '" + ldv.password() + "'");
            } catch (IllegalStateException restoredAlready) {
                // the repair above put the configured password back
            }
        }
    }

    @Test
    void theTableDroppedIsCreatedAgainByTheNextWrite() {
        TestLdv.get().dropTable();
        UUID id = accept(DV_REF, Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(journal()).as("no record, no call").isEmpty();
        assertThat(pogingen(id)).containsExactly("1:gepland");
        assertThat(query("SELECT pogingenteller FROM taak WHERE soort = 'verzenden'", null))
                .containsOnly("0");
        assertThat(http.metric("nmc_ldv_write_failures_total", "fout=\"no-table\"")
                        .orElse(0))
                .isPositive();

        clock.advance(Duration.ofSeconds(11));
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("verzonden:3");
        assertThat(journal()).extracting(LdvStoreFaultsTest::party).containsExactly("LDV", "SEND");
        assertThat(TestLdv.get().rows()).hasSize(1);
    }

    /**
     * With the store broken, a centralised and a decentralised notification are accepted and their sends run: nothing
     * is called, nothing counted or lost, the failure counted, readiness up. Then {@code repair}, and sending
     * resumes on its own: every call after its record.
     */
    private void nothingHappensUntilTheStoreIsBack(String failureClass, Runnable repair) {
        notify.profiel(KVK, ADDRESS);
        double failedBefore = http.metric("nmc_ldv_write_failures_total", "fout=\"" + failureClass + "\"")
                .orElse(0);
        UUID centraal = acceptCentraal(DV_REF, KVK, Map.of());
        UUID decentraal = accept("DOSSIER-4712", Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(journal()).as("no record, no call").isEmpty();
        assertThat(pogingen(centraal)).containsExactly("1:gepland");
        assertThat(pogingen(decentraal)).containsExactly("1:gepland");
        assertThat(query("SELECT pogingenteller || ':' || status FROM taak WHERE soort = 'verzenden'", null))
                .as("no attempt counted, nothing parked")
                .containsOnly("0:open");
        assertThat(http.metric("nmc_ldv_write_failures_total", "fout=\"" + failureClass + "\"")
                        .orElse(0))
                .as("the write failures counted")
                .isGreaterThanOrEqualTo(failedBefore + 2);
        assertThat(http.metric("nmc_engine_postponements_total", "partij=\"ldv\"")
                        .orElse(0))
                .isPositive();
        assertThat(http.get("/observe/health/ready", null).status())
                .as("the store is needed to send, not to accept")
                .isEqualTo(200);
        assertThat(http.post(
                                "/api/nmc/v1/decentraal/notificaties",
                                tokenA(),
                                nl.overheid.moz.nmc.testing.Http.json(Map.of(
                                        "dvRef",
                                        "DOSSIER-4713",
                                        "berichttype",
                                        nl.overheid.moz.nmc.testing.TestNmc.BERICHTTYPE,
                                        "emailadres",
                                        EMAIL)))
                        .status())
                .as("accepting goes on")
                .isEqualTo(202);

        repair.run();
        clock.advance(Duration.ofSeconds(11));
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(centraal)).isEqualTo("verzonden:3");
        assertThat(status(decentraal)).isEqualTo("verzonden:3");
        List<ServeEvent> calls = journal();
        for (int i = 0; i < calls.size(); i++) {
            if (!party(calls.get(i)).equals("LDV")) {
                String span = calls.get(i).getRequest().getHeader("traceparent").split("-")[2];
                assertThat(calls.subList(0, i))
                        .as("the call's record was stored before it")
                        .filteredOn(call -> party(call).equals("LDV"))
                        .extracting(call -> body(call).path("span_id").asText())
                        .containsOnlyOnce(span);
            }
        }
        assertThat(calls)
                .extracting(LdvStoreFaultsTest::party)
                .filteredOn("SEND"::equals)
                .hasSize(3);
    }

    @Test
    void aSendThatFailsLeavesAnErrorRecordRightAfterItsCallAndTheRetryHasARecordOfItsOwn() {
        notify.answer(503, "ServiceUnavailable");
        UUID id = accept(DV_REF, Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        List<ServeEvent> calls = journal();
        assertThat(calls).extracting(LdvStoreFaultsTest::party).containsExactly("LDV", "SEND", "LDV");
        JsonNode record = body(calls.get(0));
        JsonNode error = body(calls.get(2));
        assertThat(record.path("status").asText()).isEqualTo("UNSET");
        assertThat(calls.get(1).getRequest().getHeader("traceparent"))
                .isEqualTo("00-" + record.path("trace_id").asText() + "-"
                        + record.path("span_id").asText() + "-01");
        assertThat(error.path("status").asText()).isEqualTo("ERROR");
        assertThat(error.path("parent_span_id").asText())
                .isEqualTo(record.path("span_id").asText());
        assertThat(error.path("attributes").path("exception.type").asText()).isEqualTo("http-503");

        notify.reset();
        clock.advance(Duration.ofSeconds(31)); // notifynl.uncertain-send-wait: NotifyNL may still persist it
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("verzonden:3");
        List<ServeEvent> all = journal();
        assertThat(all)
                .extracting(LdvStoreFaultsTest::party)
                .as("a 503 may have reached NotifyNL: the retry first asks by reference, each call after its record")
                .containsExactly("LDV", "SEND", "LDV", "LDV", "LOOKUP-BY-REFERENCE", "LDV", "SEND");
        assertThat(body(all.get(3)).path("name").asText()).isEqualTo("nmc.notifynl.status-opvragen");
        assertThat(body(all.get(5)).path("span_id").asText())
                .as("the retry is a processing of its own")
                .isNotEqualTo(record.path("span_id").asText());
        assertThat(body(all.get(5)).path("status").asText()).isEqualTo("UNSET");
    }

    @Test
    void aRefusalOfTheEmailIsAnsweredProcessingNotAnError() {
        notify.refuseAddress();
        UUID id = accept(DV_REF, Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).startsWith("niet-bezorgbaar");
        assertThat(journal())
                .as("NotifyNL processed the address and refused it: no ERROR record")
                .extracting(LdvStoreFaultsTest::party)
                .containsExactly("LDV", "SEND");
    }

    @Test
    void theNmcsRoleCannotReadTheLogAndTheLogsRoleCannotTouchTheNmcsTables() throws Exception {
        accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(TestLdv.get().rows()).hasSize(1);

        // the NMC's role (the test database's) is refused at the LDV database's door
        assertThat(connectFails(TestLdv.get().url(), DB.user(), DB.password()))
                .as("the NMC's role connecting to the ldv database")
                .contains("permission denied for database");
        // the LDV role may connect to the NMC's test database (it was created without REVOKE), but reads and
        // writes nothing there
        String nmcDatabase = DB.url();
        for (String statement : List.of(
                "SELECT count(*) FROM notificatie",
                "UPDATE taak SET due = now()",
                "INSERT INTO pepper_gecompromitteerd (doel, versie, gemarkeerd_op) VALUES ('ldv', 9, now())",
                "DELETE FROM event",
                "TRUNCATE poging",
                "DROP TABLE notificatie")) {
            try (var c = java.sql.DriverManager.getConnection(
                            nmcDatabase, TestLdv.get().user(), TestLdv.get().password());
                    var s = c.createStatement()) {
                assertThat(catchSqlState(() -> s.execute(statement)))
                        .as(statement)
                        .isIn("42501", "42P01"); // insufficient privilege (or the schema not even visible)
            }
        }
        assertThat(connectFails(nmcDatabase.replaceFirst("/[^/?]+(\\?|$)", "/nmc$1"), "ldv", "ldv"))
                .as("the NMC's own database (scripts/pg) is closed to the LDV role")
                .containsAnyOf("permission denied for database", "does not exist");
    }

    private static String connectFails(String url, String user, String password) {
        try (var ignored = java.sql.DriverManager.getConnection(url, user, password)) {
            return "connected";
        } catch (java.sql.SQLException e) {
            return e.getMessage();
        }
    }

    private interface SqlAction {
        void run() throws java.sql.SQLException;
    }

    private static String catchSqlState(SqlAction action) {
        try {
            action.run();
            return "no error";
        } catch (java.sql.SQLException e) {
            return e.getSQLState();
        }
    }

    /** The calls WireMock received and the mirrored records, oldest first. */
    private List<ServeEvent> journal() {
        List<ServeEvent> calls = new ArrayList<>(notify.server().getAllServeEvents());
        Collections.reverse(calls);
        return calls;
    }

    private static String party(ServeEvent call) {
        String path = call.getRequest().getUrl();
        if (path.startsWith(PartiesStub.LDV_PATH)) {
            return "LDV";
        } else if (path.startsWith(PartiesStub.LOOKUP_PATH)) {
            return "LOOKUP";
        } else if (path.startsWith("/v2/notifications/email")) {
            return "SEND";
        } else if (path.startsWith("/v2/notifications?")) {
            return "LOOKUP-BY-REFERENCE";
        }
        return call.getRequest().getMethod() + " " + path;
    }

    private static JsonNode body(ServeEvent call) {
        try {
            return MAPPER.readTree(call.getRequest().getBodyAsString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
