package nl.overheid.moz.nmc.conformance;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.simulator.Party;
import nl.overheid.moz.nmc.simulator.ProfielserviceSimulator;
import nl.overheid.moz.nmc.testing.DvWebhookStub;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestLdv;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * No personal data where none may be (design §9), end to end: a suite of scenarios in both regimes — delivered,
 * permanent failure with ongeldig-melden, a bounce after delivery, a temporary failure and its resend, no contact
 * data, parties down, an NMC-internal failure, reconciliation, cancels, bad input, NotifyNL's callbacks, the feed,
 * the search and the webhook — with e-mail addresses, KVK numbers, dvRefs and personalisation values made for this
 * run. Then every place the NMC writes is searched for every one of them: its logs at every level and the
 * simulators' log lines, every table (after every round of work, since tasks and their failures do not stay),
 * every answer the DV and NotifyNL got, the metrics, the LDV store (every table of its database), and the webhook's
 * batches. The ciphertext
 * columns are searched as bytes, so they may not hold the plaintext either.
 *
 * <p>As a positive control the same search runs over what NotifyNL and the Profielservice received: the addresses
 * and personalisation must have reached NotifyNL, and the numbers the Profielservice in a body, never in a URL.
 * The scenarios end in their expected statuses, so each did what it is here for.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class PiiScanTest {

    private static final Duration PAST_MEBV = Duration.ofDays(7).plusMinutes(26);
    private static final Duration PAST_BACKOFF = Duration.ofSeconds(11);
    /** A 503 may have reached NotifyNL: the retry waits notifynl.uncertain-send-wait (30 s) to look it up. */
    private static final Duration PAST_UNCERTAIN_SEND = Duration.ofSeconds(31);

    private static final String NB = "niet-bezorgbaar";
    private static final String DB = "definitief-bezorgd";

    private final PersonalValues values = new PersonalValues();
    private final MutableClock clock = MutableClock.startingNow();
    private final TestIam iam = new TestIam();
    private final List<String> simulatorLog = new CopyOnWriteArrayList<>();
    private final CapturedLog log = new CapturedLog();
    /** Every answer the NMC gave the test (as DV and as NotifyNL), with the request it answered. */
    private final List<String[]> answers = new ArrayList<>();
    /** Hits in the tables, one per value and column (the first moment it was seen). */
    private final Map<String, PersonalValues.Hit> tableHits = new LinkedHashMap<>();

    private final Set<String> sentToNotifyNl = new LinkedHashSet<>();
    private final Set<String> lookedUp = new LinkedHashSet<>();
    private int cellsScanned;
    private int ciphertextsScanned;
    private int tableScans;

    private TestDatabase database;
    private Simulators parties;
    private DvWebhookStub webhook;
    private Nmc nmc;
    private Http http;
    private String metrics;

    private final Logger nmcLogger = Logger.getLogger("nl.overheid.moz.nmc");
    private final Logger rootLogger = Logger.getLogger("");
    private Level nmcLevel;
    private Level rootLevel;

    enum Regime {
        DECENTRAAL,
        CENTRAAL
    }

    @BeforeAll
    void runTheScenarios() throws Exception {
        // The NMC's own loggers at every level; everything else at production's INFO (logging.properties).
        nmcLevel = nmcLogger.getLevel();
        rootLevel = rootLogger.getLevel();
        nmcLogger.setLevel(Level.ALL);
        rootLogger.setLevel(Level.INFO);
        log.setLevel(Level.ALL);
        rootLogger.addHandler(log);

        database = TestDatabase.separate();
        parties = new Simulators(Duration.ZERO, clock, simulatorLog::add);
        webhook = new DvWebhookStub();
        nmc = Nmc.start(TestNmc.config(database, iam, parties.notifyNl.baseUrl(), false, parties.nmcConfig()), clock);
        http = Http.of(nmc);
        webhook.trust(http.baseUrl() + "/.well-known/jwks.json", "https://nmc.test.local");
        sql("UPDATE dienstverlener SET webhook_url = '" + webhook.url() + "' WHERE oin = '" + TestNmc.DV_A + "'");
        ManualRunner.of(nmc).runDutiesOnce();

        for (Regime regime : Regime.values()) {
            delivered(regime);
            permanentFailure(regime);
            bounceAfterDelivery(regime);
            temporaryFailureResentAndDelivered(regime);
            temporaryFailureTwice(regime);
            refusedByNotifyNl(regime);
            partiesDownThenBack(regime);
            internalFailure(regime);
            statusQueryAnswers404(regime);
            cancels(regime);
            badInput(regime);
        }
        noContactData();
        quota();
        callbacks();
        feedAndSearch();
        ManualRunner.of(nmc).runDutiesOnce();
        settle();
        metrics = call("GET /observe/metrics", () -> http.get("/observe/metrics", null));
    }

    @AfterAll
    void stop() {
        if (nmc != null) {
            nmc.close();
        }
        if (parties != null) {
            parties.close();
        }
        if (webhook != null) {
            webhook.close();
        }
        rootLogger.removeHandler(log);
        nmcLogger.setLevel(nmcLevel);
        rootLogger.setLevel(rootLevel);
    }

    // ---------------------------------------------------------------------------------------------------
    // The scans
    // ---------------------------------------------------------------------------------------------------

    @Test
    void theLogsHoldNone() {
        assertThat(log.nmcLevels())
                .as("the NMC's own records reached the scan, FINE and stack traces included")
                .contains(Level.FINE, Level.WARNING);
        assertThat(log.text()).contains("\tat nl.overheid.moz.nmc.");
        assertThat(simulatorLog).as("the simulators logged").isNotEmpty();
        List<PersonalValues.Hit> hits = new ArrayList<>(values.scan("the NMC's log", log.text()));
        hits.addAll(values.scan("the NMC's JSON log", log.json()));
        assertThat(log.json().lines())
                .as("one JSON object per record, context included")
                .hasSize(log.lines())
                .anyMatch(line -> line.contains("\"notificatie_id\""))
                .allMatch(line -> line.startsWith("{\"time\":") && line.endsWith("}"));
        hits.addAll(values.scan("the simulators' log", String.join("\n", simulatorLog)));
        report(
                "LOGS",
                log.lines() + " records (the NMC's at " + log.nmcLevels() + "), " + simulatorLog.size()
                        + " simulator lines",
                hits);
        assertThat(hits).as("personal data in the logs").isEmpty();
    }

    @Test
    void theTablesHoldNoneAndTheCiphertextsNoPlaintext() {
        assertThat(ciphertextsScanned).as("ciphertexts searched as bytes").isGreaterThan(0);
        report(
                "TABLES",
                tableScans + " scans, " + cellsScanned + " cells, " + ciphertextsScanned + " ciphertexts",
                List.copyOf(tableHits.values()));
        assertThat(tableHits.values()).as("personal data in the tables").isEmpty();
    }

    @Test
    void theAnswersHoldNone() {
        List<PersonalValues.Hit> hits = new ArrayList<>();
        int problems = 0;
        for (String[] answer : answers) {
            problems += Integer.parseInt(answer[1]) >= 400 ? 1 : 0;
            hits.addAll(values.scan("the answer " + answer[1] + " to " + answer[0], answer[2]));
        }
        assertThat(problems).as("problems among the answers").isGreaterThanOrEqualTo(20);
        report("ANSWERS", answers.size() + " answers, " + problems + " of them problems", hits);
        assertThat(hits).as("personal data in the NMC's answers").isEmpty();
    }

    @Test
    void theMetricsHoldNone() {
        assertThat(metrics).contains("nmc_");
        List<PersonalValues.Hit> hits = values.scan("/observe/metrics", metrics);
        report("METRICS", metrics.length() + " characters", hits);
        assertThat(hits).as("personal data in the metrics").isEmpty();
    }

    @Test
    void theLdvHoldsNone() throws java.sql.SQLException {
        StringBuilder store = new StringBuilder();
        int rows = 0;
        // every table of the LDV store's database, read as its own role (the NMC's role cannot read it)
        try (Connection c = TestLdv.get().connect();
                Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet names = s.executeQuery("SELECT relname FROM pg_class WHERE relnamespace ="
                    + " 'public'::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition")) {
                while (names.next()) {
                    tables.add(names.getString(1));
                }
            }
            for (String table : tables) {
                try (ResultSet all = s.executeQuery("SELECT CAST(row_to_json(t) AS text) FROM " + table + " t")) {
                    while (all.next()) {
                        store.append(all.getString(1)).append('\n');
                        rows++;
                    }
                }
            }
        }
        assertThat(TestLdv.get().rows()).as("this run's LDV records").hasSizeGreaterThan(20);
        List<PersonalValues.Hit> hits = new ArrayList<>(values.scan("the LDV store", store.toString()));
        report("LDV", rows + " rows of the LDV store", hits);
        assertThat(hits).as("personal data in the LDV store").isEmpty();
    }

    @Test
    void theWebhookHoldsNone() {
        List<ServeEvent> batches = webhook.server().getAllServeEvents();
        assertThat(batches).as("webhook batches").isNotEmpty();
        List<PersonalValues.Hit> hits = values.scan("the webhook's batches", journal(webhook.server()));
        report("WEBHOOK", batches.size() + " batches", hits);
        assertThat(hits).as("personal data in the webhook's batches").isEmpty();
    }

    /** The positive control: the same search finds what the parties must receive, and nothing more. */
    @Test
    void notifyNlGotTheAddressesAndTheProfielserviceTheNumbersInBodiesOnly() {
        String notify = journal(parties.notifyNl.wireMock());
        assertThat(found(values.scan("NotifyNL", bodies(parties.notifyNl.wireMock()), PersonalValues.EMAIL)))
                .as("addresses at NotifyNL")
                .containsAll(sentToNotifyNl);
        assertThat(found(values.scan("NotifyNL", notify, PersonalValues.PERSONALISATION)))
                .as("personalisation at NotifyNL")
                .isNotEmpty();
        assertThat(values.scan("NotifyNL", notify, PersonalValues.KVK, PersonalValues.DV_REF))
                .as("NotifyNL gets no number and no dvRef")
                .isEmpty();

        String profiel = journal(parties.profielservice.wireMock());
        assertThat(found(values.scan(
                        "the Profielservice", bodies(parties.profielservice.wireMock()), PersonalValues.KVK)))
                .as("numbers in the Profielservice's request bodies")
                .containsAll(lookedUp);
        assertThat(values.scan(
                        "the Profielservice",
                        profiel,
                        PersonalValues.EMAIL,
                        PersonalValues.DV_REF,
                        PersonalValues.PERSONALISATION))
                .as("the Profielservice gets only the number")
                .isEmpty();

        List<PersonalValues.Hit> inUrls = new ArrayList<>();
        for (WireMockServer party :
                List.of(parties.notifyNl.wireMock(), parties.profielservice.wireMock(), webhook.server())) {
            for (ServeEvent call : party.getAllServeEvents()) {
                inUrls.addAll(values.scan(
                        "the URL " + call.getRequest().getUrl(),
                        call.getRequest().getUrl()));
            }
        }
        assertThat(inUrls).as("personal data in a URL").isEmpty();
        report(
                "CONTROL",
                sentToNotifyNl.size() + " addresses at NotifyNL, " + lookedUp.size() + " numbers at the Profielservice",
                List.of());
    }

    // ---------------------------------------------------------------------------------------------------
    // The scenarios
    // ---------------------------------------------------------------------------------------------------

    private void delivered(Regime regime) {
        UUID id = accept(regime, "bezorgd", null, Map.of());
        settle();
        advance(PAST_MEBV);
        assertStatus(id, DB);
    }

    private void permanentFailure(Regime regime) {
        UUID id = accept(regime, "permanent", NotifyNlSimulator.PERM_FAIL_ADDRESS, Map.of());
        settle();
        assertStatus(id, NB);
        assertReportedInvalidWhenCentralised(regime, id);
    }

    private void bounceAfterDelivery(Regime regime) {
        UUID id = deliveredThen(regime, "bounce", Duration.ofDays(2), "permanent-failure");
        advance(PAST_MEBV);
        assertStatus(id, NB);
        assertReportedInvalidWhenCentralised(regime, id);
    }

    private void temporaryFailureResentAndDelivered(Regime regime) {
        UUID id = deliveredThen(regime, "tijdelijk", Duration.ofDays(1), "temporary-failure");
        assertThat(query("SELECT nummer || ':' || status FROM poging WHERE notificatie = ? ORDER BY nummer", id))
                .as("resent and delivered")
                .containsExactly("1:tijdelijk-mislukt", "2:bezorgd");
        advance(PAST_MEBV);
        assertStatus(id, DB);
    }

    /** A notification delivered, and {@code after} that NotifyNL learns a later outcome of it. */
    private UUID deliveredThen(Regime regime, String tag, Duration after, String outcome) {
        UUID id = accept(regime, tag, null, Map.of());
        settle();
        advance(after);
        parties.notifyNl.laterOutcome(notifyId(id, 1), outcome);
        settle();
        return id;
    }

    private void temporaryFailureTwice(Regime regime) {
        UUID id = accept(regime, "tweemaal", NotifyNlSimulator.TEMP_FAIL_ADDRESS, Map.of());
        settle();
        assertStatus(id, NB);
    }

    private void refusedByNotifyNl(Regime regime) {
        StubMapping refusal = parties.notifyNl
                .wireMock()
                .stubFor(post(urlPathEqualTo("/v2/notifications/email"))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(400)
                                .withHeader("Content-Type", "application/json")
                                .withBody(NotifyNlSimulator.errorBody(
                                        400, "ValidationError", "email_address Not a valid email address"))));
        UUID id = accept(regime, "geweigerd", null, Map.of());
        settle();
        parties.notifyNl.wireMock().removeStub(refusal);
        assertStatus(id, NB);
    }

    /** The LDV store, the Profielservice (centralised) and NotifyNL down in turn: postponed, then sent. */
    private void partiesDownThenBack(Regime regime) {
        UUID id = accept(regime, "storing", null, Map.of());
        List<Supplier<Runnable>> outages = new ArrayList<>();
        // the LDV store refusing every record, its error quoting the row as a driver's message would
        outages.add(() -> {
            TestLdv.get().failInserts("53100", "TRUE");
            return TestLdv.get()::heal;
        });
        if (regime == Regime.CENTRAAL) {
            outages.add(() -> outage(parties.profielservice.wireMock(), ProfielserviceSimulator.PARTIJ_PATH));
        }
        outages.add(() -> outage(parties.notifyNl.wireMock(), "/v2/notifications/email"));
        for (Supplier<Runnable> outage : outages) {
            Runnable end = outage.get();
            advance(PAST_BACKOFF);
            assertThat(query("SELECT laatste_fout FROM taak WHERE notificatie = ? AND soort = 'verzenden'", id))
                    .as("postponed with its failure")
                    .singleElement()
                    .isNotNull();
            end.run();
        }
        advance(PAST_UNCERTAIN_SEND);
        advance(PAST_MEBV);
        assertStatus(id, DB);
    }

    /** An NMC-internal failure whose exception is logged with its stack trace: the data key cannot be unwrapped. */
    private void internalFailure(Regime regime) {
        UUID id = accept(regime, "intern", null, Map.of());
        execute("UPDATE notificatie SET datasleutel_gewrapt = '\\x00' WHERE id = ?", id);
        for (int round = 0; round < 7; round++) {
            advance(PAST_BACKOFF);
        }
        assertStatus(id, "technisch-mislukt");
        sentToNotifyNl.remove(address(id));
        lookedUp.remove(number(id));
    }

    private void statusQueryAnswers404(Regime regime) {
        UUID id = accept(regime, "navraag", NotifyNlSimulator.PENDING_ADDRESS, Map.of());
        settle();
        parties.notifyNl.forget(notifyId(id, 1));
        advance(Duration.ofMinutes(61));
        advance(PAST_MEBV);
        assertStatus(id, "bezorgstatus-onbekend");
    }

    private void cancels(Regime regime) {
        UUID cancelled = accept(regime, "annuleren", null, Map.of());
        assertThat(dv("DELETE", "/api/nmc/v1/notificaties/" + cancelled, null).status())
                .isEqualTo(200);
        sentToNotifyNl.remove(address(cancelled));
        lookedUp.remove(number(cancelled));
        UUID sent = accept(regime, "te-laat", null, Map.of());
        settle();
        assertThat(dv("DELETE", "/api/nmc/v1/notificaties/" + sent, null).status())
                .isEqualTo(409);
        advance(PAST_MEBV);
    }

    /** Requests the NMC must refuse, each carrying personal data in its valid fields too. */
    private void badInput(Regime regime) {
        String path = acceptPath(regime);
        String contact = regime == Regime.CENTRAAL ? "identificatieNummer" : "emailadres";
        List<Map<String, Object>> bodies = new ArrayList<>();
        bodies.add(request(regime, Map.of("berichttype", "onbekend-bericht")));
        bodies.add(request(regime, Map.of("berichttype", "Ongeldig Bericht!")));
        bodies.add(request(regime, Map.of("dvRef", values.dvRef("te-lang") + "-" + "x".repeat(200))));
        bodies.add(request(regime, Map.of("dvRef", values.dvRef("spatie") + " met spatie")));
        bodies.add(request(regime, Map.of("geldigTot", "morgen")));
        bodies.add(request(regime, Map.of("personalisation", Map.of("onderwerp", 42))));
        bodies.add(request(regime, Map.of("onbekendVeld", values.personalisation("onbekend"))));
        bodies.add(request(
                regime,
                Map.of(
                        regime == Regime.CENTRAAL ? "emailadres" : "identificatieNummer",
                        regime == Regime.CENTRAAL ? values.email("verkeerd-regime") : values.kvk())));
        bodies.add(request(
                regime,
                Map.of(
                        contact,
                        regime == Regime.CENTRAAL
                                ? values.known(PersonalValues.KVK, values.kvk() + "9")
                                : values.known(
                                        PersonalValues.EMAIL, "pii-ongeldig-" + values.dvRef("adres") + "@@example"))));
        Map<String, Object> missing = new HashMap<>(request(regime, Map.of()));
        missing.remove("berichttype");
        bodies.add(missing);
        for (Map<String, Object> body : bodies) {
            assertThat(dv("POST", path, Http.json(body)).status())
                    .as(body.toString())
                    .isBetween(400, 499);
        }
        String truncated = Http.json(request(regime, Map.of()));
        assertThat(dv("POST", path, truncated.substring(0, truncated.length() - 3))
                        .status())
                .isEqualTo(400);
        assertThat(call(
                        "POST " + path + " without a token",
                        () -> http.post(path, null, Http.json(request(regime, Map.of())))))
                .startsWith("401");
        UUID own = accept(regime, "van-a", null, Map.of());
        assertThat(call(
                        "GET another DV's notification",
                        () -> http.get("/api/nmc/v1/notificaties/" + own, iam.token(TestNmc.DV_B, clock.instant()))))
                .startsWith("404");
        settle();
    }

    private void noContactData() {
        String unknown = values.kvk();
        String withoutPreference = values.kvk();
        parties.profielservice.register(Party.kvk(withoutPreference).phone("0612345678"));
        for (String kvk : List.of(unknown, withoutPreference)) {
            UUID id = acceptBody(Regime.CENTRAAL, request(Regime.CENTRAAL, Map.of("identificatieNummer", kvk)));
            lookedUp.add(kvk);
            settle();
            assertStatus(id, NB);
        }
    }

    private void quota() {
        String token = iam.token(TestNmc.DV_SMALL_QUOTA, clock.instant());
        List<Integer> statuses = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            String body = Http.json(request(Regime.DECENTRAAL, Map.of()));
            statuses.add(Integer.parseInt(call(
                            "POST decentraal (small quota)",
                            () -> http.post(acceptPath(Regime.DECENTRAAL), token, body))
                    .substring(0, 3)));
        }
        assertThat(statuses).as("over the quota").contains(429);
        clock.advance(Duration.ofMinutes(2));
        settle();
    }

    /** NotifyNL's side: receipts naming no attempt, malformed ones and a wrong token, all with an address. */
    private void callbacks() {
        String to = values.email("callback");
        Map<String, Object> receipt = new HashMap<>(Map.of(
                "id",
                UUID.randomUUID().toString(),
                "reference",
                UUID.randomUUID().toString(),
                "to",
                to,
                "status",
                "delivered",
                "created_at",
                clock.instant().minusSeconds(5).toString(),
                "completed_at",
                clock.instant().toString(),
                "sent_at",
                clock.instant().minusSeconds(3).toString(),
                "notification_type",
                "email",
                "template_id",
                TestNmc.TEMPLATE_ID,
                "template_version",
                1));
        String path = "/api/nmc/v1/notifynl-callback";
        call("POST callback naming no attempt", () -> http.post(path, TestNmc.CALLBACK_TOKEN, Http.json(receipt)));
        Map<String, Object> malformed = new HashMap<>(receipt);
        malformed.put("completed_at", "gisteren " + to);
        malformed.put("reference", values.dvRef("referentie"));
        call("POST malformed callback", () -> http.post(path, TestNmc.CALLBACK_TOKEN, Http.json(malformed)));
        call("POST callback with a wrong token", () -> http.post(path, "fout-" + to, Http.json(receipt)));
        call("POST callback, not JSON", () -> http.post(path, TestNmc.CALLBACK_TOKEN, "{\"to\": \"" + to + "\""));
        // A DV token that does not parse, holding an address: refused with a FINE record (the scan's positive
        // control that FINE records reach it) that must not quote the token.
        call(
                "GET with a DV token that does not parse",
                () -> http.get("/api/nmc/v1/notificaties?dvRef=x", "kapot." + to + ".token"));
        settle();
    }

    /** The DV's feed read to the end and acknowledged, a bad cursor, and searches by dvRef. */
    private void feedAndSearch() {
        String cursor = null;
        for (int page = 0; page < 100; page++) {
            Http.Response response = dv(
                    "GET",
                    "/api/nmc/v1/notificaties/wijzigingen?limit=1000" + (cursor == null ? "" : "&cursor=" + cursor),
                    null);
            assertThat(response.status()).isEqualTo(200);
            if (response.json().path("events").isEmpty()) {
                break;
            }
            cursor = response.json().path("cursor").asText();
        }
        assertThat(dv("PUT", "/api/nmc/v1/notificaties/wijzigingen/bevestiging", Http.json(Map.of("cursor", cursor)))
                        .status())
                .isBetween(200, 299);
        assertThat(dv("GET", "/api/nmc/v1/notificaties/wijzigingen?cursor=" + values.dvRef("cursor"), null)
                        .status())
                .isBetween(400, 499);
        assertThat(dv(
                                "PUT",
                                "/api/nmc/v1/notificaties/wijzigingen/bevestiging",
                                Http.json(Map.of("cursor", values.email("cursor"))))
                        .status())
                .isBetween(400, 499);
        String known = values.values(PersonalValues.DV_REF).getFirst();
        assertThat(dv("GET", "/api/nmc/v1/notificaties?dvRef=" + known, null)
                        .json()
                        .path("notificaties"))
                .as("found by dvRef")
                .isNotEmpty();
        dv("GET", "/api/nmc/v1/notificaties?dvRef=" + values.dvRef("onbekend"), null);
        assertThat(dv("GET", "/api/nmc/v1/notificaties?dvRef=" + values.dvRef("te-lang") + "x".repeat(200), null)
                        .status())
                .isEqualTo(400);
    }

    // ---------------------------------------------------------------------------------------------------
    // The DV's side, driving, and reading
    // ---------------------------------------------------------------------------------------------------

    /**
     * Accepts a notification for a new address (or the simulator's {@code address} that chooses NotifyNL's
     * outcome); centralised, for a new KVK number the Profielservice maps to that address.
     */
    private UUID accept(Regime regime, String tag, String address, Map<String, Object> extra) {
        String to = address == null ? values.email(tag) : values.known(PersonalValues.EMAIL, address);
        Map<String, Object> body = new HashMap<>(request(regime, extra));
        if (regime == Regime.CENTRAAL) {
            String kvk = values.kvk();
            parties.profielservice.register(Party.kvk(kvk).email(to));
            body.put("identificatieNummer", kvk);
            lookedUp.add(kvk);
        } else {
            body.put("emailadres", to);
        }
        UUID id = acceptBody(regime, body);
        addresses.put(id, to);
        numbers.put(id, (String) body.get("identificatieNummer"));
        sentToNotifyNl.add(to);
        return id;
    }

    private final Map<UUID, String> addresses = new HashMap<>();
    private final Map<UUID, String> numbers = new HashMap<>();

    private String address(UUID id) {
        return addresses.get(id);
    }

    private String number(UUID id) {
        return numbers.get(id);
    }

    /** A valid request with a new dvRef and personalisation, and a new address or number; {@code extra} on top. */
    private Map<String, Object> request(Regime regime, Map<String, Object> extra) {
        Map<String, Object> body = new HashMap<>(Map.of(
                "dvRef",
                values.dvRef("ref"),
                "berichttype",
                TestNmc.BERICHTTYPE,
                "personalisation",
                Map.of("onderwerp", values.personalisation("onderwerp"), "naam", values.personalisation("naam"))));
        if (regime == Regime.CENTRAAL) {
            body.put("identificatieType", "KVK");
            body.put("identificatieNummer", values.kvk());
        } else {
            body.put("emailadres", values.email("aanvraag"));
        }
        body.putAll(extra);
        return body;
    }

    private UUID acceptBody(Regime regime, Map<String, Object> body) {
        Http.Response response = dv("POST", acceptPath(regime), Http.json(body));
        assertThat(response.status()).as(response.body()).isEqualTo(202);
        return UUID.fromString(response.json().path("id").asText());
    }

    private static String acceptPath(Regime regime) {
        return regime == Regime.CENTRAAL ? "/api/nmc/v1/centraal/notificaties" : "/api/nmc/v1/decentraal/notificaties";
    }

    /** A call as DV A, its answer kept for the scan. */
    private Http.Response dv(String method, String path, String body) {
        String token = iam.token(TestNmc.DV_A, clock.instant());
        Http.Response response = switch (method) {
            case "GET" -> http.get(path, token);
            case "DELETE" -> http.delete(path, token);
            case "PUT" -> http.put(path, token, body);
            default -> http.post(path, token, body);
        };
        answers.add(new String[] {method + " " + path, String.valueOf(response.status()), response.body()});
        return response;
    }

    /** Any other call, its answer kept for the scan; returns "status body". */
    private String call(String what, Supplier<Http.Response> call) {
        Http.Response response = call.get();
        answers.add(new String[] {what, String.valueOf(response.status()), response.body()});
        return response.status() + " " + response.body();
    }

    private void assertStatus(UUID id, String status) {
        assertThat(dv("GET", "/api/nmc/v1/notificaties/" + id, null)
                        .json()
                        .path("status")
                        .asText())
                .as(
                        "attempts %s, tasks %s",
                        query(
                                "SELECT nummer || ':' || status || ':' || coalesce("
                                        + "CAST(ontvangst_completed_at AS text), '-') FROM poging WHERE notificatie = ?",
                                id),
                        query("SELECT soort || '@' || due FROM taak WHERE notificatie = ?", id))
                .isEqualTo(status);
    }

    private void assertReportedInvalidWhenCentralised(Regime regime, UUID id) {
        if (regime == Regime.CENTRAAL) {
            assertThat(parties.profielservice.deletes())
                    .as("ongeldig-melden: the address that bounced deleted")
                    .anySatisfy(
                            delete -> assertThat(delete.identificatieNummer()).isEqualTo(number(id)));
        }
    }

    /** The party answers 503 on this path until the returned action ends it. */
    private static Runnable outage(WireMockServer party, String path) {
        StubMapping stub = party.stubFor(
                post(urlPathEqualTo(path)).atPriority(1).willReturn(aResponse().withStatus(503)));
        return () -> party.removeStub(stub);
    }

    private void settle() {
        Rounds.settle(nmc, parties.notifyNl);
        scanTables();
    }

    private void advance(Duration duration) {
        clock.advance(duration);
        settle();
    }

    private UUID notifyId(UUID id, int attemptNumber) {
        return UUID.fromString(
                query("SELECT notify_id FROM poging WHERE notificatie = ? AND nummer = " + attemptNumber, id)
                        .getFirst());
    }

    /**
     * Every column of every table (partitions through their parent), searched now; bytea as its bytes, so a
     * ciphertext that held the plaintext would be found. The whole is searched first and a column only when
     * that finds anything, since this runs after every round of work.
     */
    private void scanTables() {
        tableScans++;
        Map<String, StringBuilder> columns = new LinkedHashMap<>();
        try (Connection c = database.connect();
                Statement s = c.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rows = s.executeQuery("""
                    SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p')
                       AND NOT relispartition AND relname <> 'flyway_schema_history'
                    """)) {
                while (rows.next()) {
                    tables.add(rows.getString(1));
                }
            }
            for (String table : tables) {
                try (ResultSet rows = s.executeQuery("SELECT * FROM " + table)) {
                    ResultSetMetaData meta = rows.getMetaData();
                    while (rows.next()) {
                        for (int i = 1; i <= meta.getColumnCount(); i++) {
                            String column = table + "." + meta.getColumnName(i);
                            boolean bytes = meta.getColumnTypeName(i).equals("bytea");
                            String text = bytes ? latin1(rows.getBytes(i)) : rows.getString(i);
                            if (text != null) {
                                cellsScanned++;
                                ciphertextsScanned += column.endsWith("_versleuteld") ? 1 : 0;
                                columns.computeIfAbsent(column, k -> new StringBuilder())
                                        .append(text)
                                        .append('\n');
                            }
                        }
                    }
                }
            }
            c.rollback();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        String all = String.join("\u0000", columns.values());
        if (values.scan("the tables", all).isEmpty()) {
            return;
        }
        columns.forEach((column, text) -> {
            for (PersonalValues.Hit hit :
                    values.scan("column " + column + " (scan " + tableScans + ")", text.toString())) {
                tableHits.putIfAbsent(hit.value() + "@" + column, hit);
            }
        });
    }

    private static String latin1(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.ISO_8859_1);
    }

    /** What a party received: per call its method, URL, headers and body. */
    private static String journal(WireMockServer party) {
        StringBuilder text = new StringBuilder();
        for (ServeEvent call : party.getAllServeEvents()) {
            text.append(call.getRequest().getMethod())
                    .append(' ')
                    .append(call.getRequest().getUrl())
                    .append('\n')
                    .append(call.getRequest().getHeaders())
                    .append('\n')
                    .append(call.getRequest().getBodyAsString())
                    .append("\n\n");
        }
        return text.toString();
    }

    /** The bodies of what a party received. */
    private static String bodies(WireMockServer party) {
        StringBuilder text = new StringBuilder();
        party.getAllServeEvents()
                .forEach(
                        call -> text.append(call.getRequest().getBodyAsString()).append('\n'));
        return text.toString();
    }

    private static Set<String> found(List<PersonalValues.Hit> hits) {
        Set<String> found = new LinkedHashSet<>();
        hits.forEach(hit -> found.add(hit.value()));
        return found;
    }

    /** One line per scan for the build log: what was searched, and the hits. */
    private void report(String scan, String searched, List<PersonalValues.Hit> hits) {
        System.out.println("PII-SCAN " + scan + ": " + values.all().size() + " values in " + searched + ": "
                + hits.size() + " hits");
        hits.forEach(hit -> System.out.println("  " + hit));
    }

    private List<String> query(String sql, UUID parameter) {
        return database.query(sql, parameter);
    }

    private void execute(String sql, UUID parameter) {
        database.execute(sql, parameter);
    }

    private void sql(String sql) {
        database.execute(sql, null);
    }

    /** Every log record of the run, at every level, with its stack trace: the text an operator would read. */
    private static final class CapturedLog extends Handler {
        private final StringBuilder text = new StringBuilder();
        /** The same records as production writes them: one JSON object per line, with the log context. */
        private final StringBuilder json = new StringBuilder();

        private final java.util.logging.Formatter jsonFormatter = new nl.overheid.moz.nmc.logging.JsonLogFormatter();
        private final SimpleFormatter formatter = new SimpleFormatter();
        private final Set<Level> nmcLevels = new LinkedHashSet<>();
        private int lines;

        @Override
        public synchronized void publish(LogRecord record) {
            lines++;
            if (record.getLoggerName() != null && record.getLoggerName().startsWith("nl.overheid.moz.nmc.")) {
                nmcLevels.add(record.getLevel());
            }
            text.append(record.getLevel())
                    .append(' ')
                    .append(record.getLoggerName())
                    .append(": ")
                    .append(formatter.formatMessage(record))
                    .append('\n');
            json.append(jsonFormatter.format(record));
            if (record.getThrown() != null) {
                StringWriter trace = new StringWriter();
                record.getThrown().printStackTrace(new PrintWriter(trace));
                text.append(trace).append('\n');
            }
        }

        synchronized String text() {
            return text.toString();
        }

        synchronized String json() {
            return json.toString();
        }

        synchronized int lines() {
            return lines;
        }

        synchronized Set<Level> nmcLevels() {
            return Set.copyOf(nmcLevels);
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    }
}
