package nl.overheid.moz.nmc.observe;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.PrometheusText;
import nl.overheid.moz.nmc.testing.RunningNmc;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code /observe/metrics} scraped and parsed as Prometheus text (never searched as a string): the ADR's gauges and
 * the engine's and the API's counters and histograms move with what the NMC does, and every per-DV label is a DV
 * of the register. Workers and duties run when the test says, on a test clock.
 */
class MetricsTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final TestIam IAM = new TestIam();
    private static final String ACCEPT = "POST /api/nmc/v1/decentraal/notificaties";
    private static final MutableClock CLOCK = MutableClock.startingNow();
    private static RunningNmc nmc;
    private static Http http;
    private static final List<LogRecord> LOGGED = new ArrayList<>();
    private static final Handler CAPTURE = new Handler() {
        @Override
        public void publish(LogRecord record) {
            synchronized (LOGGED) {
                LOGGED.add(record);
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };

    @BeforeAll
    static void start() {
        DB.reset();
        nmc = RunningNmc.start(
                DB,
                IAM,
                CLOCK,
                "observe: {geen-contactgegevens: {window: PT1H, threshold: 0.5, min-notifications: 2}}");
        http = nmc.http();
        Logger.getLogger("nl.overheid.moz.nmc").addHandler(CAPTURE);
    }

    @AfterAll
    static void stop() {
        Logger.getLogger("nl.overheid.moz.nmc").removeHandler(CAPTURE);
        nmc.close();
    }

    private static PrometheusText scrape() {
        Http.Response response = http.request("GET", "/observe/metrics", null, null, null);
        assertThat(response.status()).isEqualTo(200);
        return PrometheusText.parse(response.body());
    }

    private static Http.Response accept(String dvRef) {
        return http.post(
                "/api/nmc/v1/decentraal/notificaties",
                IAM.token(TestNmc.DV_A),
                Http.json(
                        Map.of("dvRef", dvRef, "berichttype", TestNmc.BERICHTTYPE, "emailadres", "iemand@example.nl")));
    }

    @Test
    void theBacklogTheClaimsAndTheApiAreCountedAndTheTaskGaugesHaveEveryKind() {
        PrometheusText before = scrape();
        for (TaskKind kind : TaskKind.values()) {
            assertThat(before.find("nmc_tasks_failed", Map.of("soort", kind.dbValue())))
                    .as(kind.dbValue())
                    .hasSize(1);
            assertThat(before.find("nmc_tasks_backlog", Map.of("soort", kind.dbValue())))
                    .hasSize(1);
        }
        Map<String, String> accepted = Map.of("operatie", ACCEPT, "status", "202");
        double requests = before.value("nmc_api_requests_total", accepted);
        double latencyCount = before.value("nmc_api_request_duration_seconds_count", Map.of("operatie", ACCEPT));

        assertThat(accept("metrics-1").status()).isEqualTo(202);
        assertThat(accept("metrics-2").status()).isEqualTo(202);
        CLOCK.advance(Duration.ofSeconds(30));
        ManualRunner.of(nmc.nmc()).runDutiesOnce();

        PrometheusText queued = scrape();
        assertThat(queued.require("nmc_api_requests_total", accepted)).isEqualTo(requests + 2);
        assertThat(queued.require("nmc_api_request_duration_seconds_count", Map.of("operatie", ACCEPT)))
                .isEqualTo(latencyCount + 2);
        assertHistogramIsCumulative(queued, "nmc_api_request_duration_seconds", Map.of("operatie", ACCEPT));
        assertThat(queued.require("nmc_tasks_backlog", Map.of("soort", "verzenden")))
                .isEqualTo(2);
        assertThat(queued.require("nmc_tasks_oldest_due_seconds", Map.of("soort", "verzenden")))
                .isEqualTo(30);
        assertThat(queued.require("nmc_sending_backlog", Map.of("dv", TestNmc.DV_A)))
                .isEqualTo(2);
        assertThat(queued.require("nmc_sending_backlog", Map.of("dv", TestNmc.DV_B)))
                .isZero();

        Map<String, String> sending = Map.of("soort", "verzenden");
        double rounds = queued.value("nmc_engine_claim_rounds_total", sending);
        double claimed = queued.value("nmc_engine_claimed_tasks_total", sending);
        Map<String, String> standaardNow = Map.of("service", "standaard", "doel", "sending", "venster", "huidig");
        double tokensTaken = queued.require("nmc_send_budget_taken", standaardNow);
        ManualRunner.of(nmc.nmc()).runWorkerOnce(TaskKind.VERZENDEN);
        ManualRunner.of(nmc.nmc()).runDutiesOnce();
        PrometheusText sent = scrape();
        assertThat(sent.require("nmc_engine_claim_rounds_total", sending)).isEqualTo(rounds + 1);
        assertThat(sent.require("nmc_engine_claimed_tasks_total", sending)).isEqualTo(claimed + 2);
        assertHistogramIsCumulative(sent, "nmc_engine_claim_duration_seconds", sending);
        assertThat(sent.require("nmc_tasks_backlog", sending)).isZero();
        assertThat(sent.require("nmc_sending_backlog", Map.of("dv", TestNmc.DV_A)))
                .isZero();
        assertThat(sent.require("nmc_send_budget_taken", standaardNow))
                .as("the two sends' tokens")
                .isEqualTo(tokensTaken + 2);
        assertThat(sent.require("nmc_send_budget_capacity", standaardNow))
                .as("3000 less the reconcile share")
                .isEqualTo(2700);
        assertThat(sent.require(
                        "nmc_send_budget_taken", Map.of("service", "tweede", "doel", "sending", "venster", "huidig")))
                .isZero();
    }

    @Test
    void problemsAreCountedByOperationTypeAndStatusAndUnknownPathsShareOneLabel() {
        Map<String, String> badRequest = Map.of("operatie", ACCEPT, "status", "400");
        Map<String, String> unknown = Map.of("operatie", "onbekend", "status", "404");
        PrometheusText before = scrape();
        double problems = before.find("nmc_api_problems_total", badRequest).stream()
                .mapToDouble(s -> s.value())
                .sum();
        double notFound = before.find("nmc_api_problems_total", unknown).stream()
                .mapToDouble(s -> s.value())
                .sum();

        assertThat(http.post("/api/nmc/v1/decentraal/notificaties", IAM.token(TestNmc.DV_A), "{\"dvRef\": 1}")
                        .status())
                .isEqualTo(400);
        assertThat(http.get("/api/nmc/v1/bestaat-niet-" + System.nanoTime(), null)
                        .status())
                .isEqualTo(404);
        assertThat(http.request("BREW", "/api/nmc/v1/koffie", null, null, null).status())
                .isIn(404, 405, 501);

        PrometheusText after = scrape();
        List<PrometheusText.Sample> bad = after.find("nmc_api_problems_total", badRequest);
        assertThat(bad.stream().mapToDouble(PrometheusText.Sample::value).sum()).isEqualTo(problems + 1);
        assertThat(bad)
                .allSatisfy(sample -> assertThat(sample.labels().get("type")).startsWith("http"));
        assertThat(after.find("nmc_api_problems_total", unknown).stream()
                        .mapToDouble(s -> s.value())
                        .sum())
                .isGreaterThanOrEqualTo(notFound + 1);
        assertThat(after.samples())
                .as("no request path or method becomes a label")
                .noneMatch(sample -> sample.labels().values().stream()
                        .anyMatch(value -> value.contains("bestaat-niet") || value.contains("BREW")));
    }

    /**
     * A send a party keeps failing is postponed, never parked, and only its geldig_tot ends the wait (none here: the
     * test berichttype has no default validity): the oldest open send's age shows it, and the NMC logs it once, with
     * its notification's id, when it has been open six hours.
     */
    @Test
    void aSendPostponedForHoursShowsInTheOldestOpenSendAndIsLoggedOnceByItsNotification() {
        Http.Response accepted = accept("metrics-not-ending");
        assertThat(accepted.status()).isEqualTo(202);
        String id = accepted.json().get("id").asText();
        nmc.parties().answer(500, "Exception");
        try {
            ManualRunner.of(nmc.nmc()).runWorkerOnce(TaskKind.VERZENDEN);
        } finally {
            nmc.parties().reset();
        }
        assertThat(DB.query("SELECT status FROM notificatie WHERE id = CAST(? AS uuid)", id))
                .containsExactly("in-verzending");
        // planned seven hours ago on the database's clock, which stamps aangemaakt_op
        DB.execute(
                "UPDATE taak SET aangemaakt_op = now() - interval '7 hours'"
                        + " WHERE soort = 'verzenden' AND notificatie = CAST(? AS uuid)",
                id);
        synchronized (LOGGED) {
            LOGGED.clear();
        }
        ManualRunner.of(nmc.nmc()).runDutiesOnce();
        ManualRunner.of(nmc.nmc()).runDutiesOnce();

        assertThat(scrape().require("nmc_sending_oldest_open_seconds", Map.of()))
                .isBetween(7 * 3600.0, 7 * 3600.0 + 120);
        assertThat(scrape().require("nmc_clock_offset_seconds", Map.of()))
                .as("the host's clock against the database's, whatever the injected clock says")
                .isBetween(-1.0, 1.0);
        List<String> logged;
        synchronized (LOGGED) {
            logged = LOGGED.stream()
                    .map(LogRecord::getMessage)
                    .filter(m -> m.contains("has been open for"))
                    .toList();
        }
        assertThat(logged).as("logged once over two duty rounds").hasSize(1);
        assertThat(logged.getFirst())
                .contains("notification " + id)
                .contains("PT7H")
                .contains("error http-500");

        // sent once NotifyNL answers: the gauge no longer holds it
        DB.execute(
                "UPDATE taak SET due = now() - interval '1 minute' WHERE soort = 'verzenden' AND notificatie = CAST(? AS uuid)",
                id);
        ManualRunner.of(nmc.nmc()).runWorkerOnce(TaskKind.VERZENDEN);
        ManualRunner.of(nmc.nmc()).runDutiesOnce();
        assertThat(DB.query("SELECT status FROM notificatie WHERE id = CAST(? AS uuid)", id))
                .containsExactly("verzonden");
        assertThat(scrape().require("nmc_sending_oldest_open_seconds", Map.of()))
                .isLessThan(3600);
    }

    @Test
    void anExpiredLeaseAndAPostponementAreCountedByCause() {
        assertThat(accept("metrics-lease").status()).isEqualTo(202);
        Map<String, String> sending = Map.of("soort", "verzenden");
        Map<String, String> notify503 = Map.of("soort", "verzenden", "partij", "notifynl", "fout", "http-503");
        PrometheusText before = scrape();
        nmc.parties().answer(503, "ServiceUnavailable");
        try {
            ManualRunner.of(nmc.nmc()).runWorkerOnce(TaskKind.VERZENDEN);
        } finally {
            nmc.parties().reset();
        }
        PrometheusText postponed = scrape();
        assertThat(postponed.require("nmc_engine_postponements_total", notify503))
                .isEqualTo(before.value("nmc_engine_postponements_total", notify503) + 1);

        // A claim whose lease ran out: the task is due again with its old lease still set.
        DB.execute(
                "UPDATE taak SET due = now() - interval '1 hour', lease_tot = now() - interval '1 minute'"
                        + " WHERE soort = 'verzenden'",
                null);
        ManualRunner.of(nmc.nmc()).runWorkerOnce(TaskKind.VERZENDEN);
        assertThat(scrape().require("nmc_engine_lease_expiries_total", sending))
                .isEqualTo(before.value("nmc_engine_lease_expiries_total", sending) + 1);
    }

    @Test
    void aDvAboveTheGeenContactgegevensThresholdIsFlaggedAndLoggedOnce() {
        // Centralised notifications for numbers the Profielservice does not know end geen-contactgegevens.
        for (String dv : List.of(TestNmc.DV_A, TestNmc.DV_A, TestNmc.DV_B)) {
            assertThat(http.post(
                                    "/api/nmc/v1/centraal/notificaties",
                                    IAM.token(dv),
                                    Http.json(Map.of(
                                            "dvRef",
                                            "contact-" + System.nanoTime(),
                                            "berichttype",
                                            TestNmc.BERICHTTYPE,
                                            "identificatieType",
                                            "KVK",
                                            "identificatieNummer",
                                            "99999999")))
                            .status())
                    .isEqualTo(202);
        }
        ManualRunner.of(nmc.nmc()).runWorkerOnce(TaskKind.VERZENDEN);
        ManualRunner.of(nmc.nmc()).runDutiesOnce();
        ManualRunner.of(nmc.nmc()).runDutiesOnce();

        PrometheusText metrics = scrape();
        Map<String, String> a = Map.of("dv", TestNmc.DV_A);
        Map<String, String> b = Map.of("dv", TestNmc.DV_B);
        assertThat(metrics.require("nmc_geen_contactgegevens_terminal", a)).isEqualTo(2);
        assertThat(metrics.require("nmc_geen_contactgegevens_share", a)).isEqualTo(1.0);
        assertThat(metrics.require("nmc_geen_contactgegevens_above_threshold", a))
                .isEqualTo(1);
        assertThat(metrics.require("nmc_geen_contactgegevens_share", b)).isEqualTo(1.0);
        assertThat(metrics.require("nmc_geen_contactgegevens_above_threshold", b))
                .as("one notification is below min-notifications")
                .isZero();
        synchronized (LOGGED) {
            assertThat(LOGGED.stream()
                            .filter(r -> r.getLevel() == Level.WARNING
                                    && r.getMessage().contains("geen-contactgegevens")
                                    && r.getMessage().contains(TestNmc.DV_A)))
                    .as("logged once over two duty runs")
                    .hasSize(1);
        }
    }

    @Test
    void everyPerDvLabelIsADvOfTheRegister() {
        ManualRunner.of(nmc.nmc()).runDutiesOnce();
        Set<String> register = new HashSet<>(DB.query("SELECT oin FROM dienstverlener", null));
        List<PrometheusText.Sample> perDv = scrape().samples().stream()
                .filter(sample -> sample.labels().containsKey("dv"))
                .toList();
        assertThat(perDv).isNotEmpty();
        assertThat(perDv)
                .allSatisfy(
                        sample -> assertThat(register).contains(sample.labels().get("dv")));
    }

    /** Every bucket holds at least the one below it, and +Inf equals the count. */
    private static void assertHistogramIsCumulative(PrometheusText text, String name, Map<String, String> labels) {
        List<PrometheusText.Sample> buckets = new ArrayList<>(text.find(name + "_bucket", labels));
        assertThat(text.types().get(name)).isEqualTo("histogram");
        assertThat(buckets).hasSizeGreaterThan(5);
        buckets.sort(java.util.Comparator.comparingDouble(
                s -> Double.parseDouble(s.labels().get("le").replace("+Inf", "Infinity"))));
        for (int i = 1; i < buckets.size(); i++) {
            assertThat(buckets.get(i).value())
                    .isGreaterThanOrEqualTo(buckets.get(i - 1).value());
        }
        assertThat(buckets.getLast().labels().get("le")).isEqualTo("+Inf");
        assertThat(buckets.getLast().value()).isEqualTo(text.require(name + "_count", labels));
    }
}
