package nl.overheid.moz.nmc.conformance;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.stubbing.StubMapping;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Stream;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.simulator.Party;
import nl.overheid.moz.nmc.simulator.ProfielserviceSimulator;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestLdv;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every row of the transition table (design §7.2), in both regimes, reached end to end: a DV's requests over
 * HTTP, the NMC with its workers run one round at a time on a clock the test moves (seven days pass in
 * milliseconds), the simulators of NotifyNL and the Profielservice, and the LDV store (this JVM's table). Each
 * scenario states the path of statuses the DV's feed must show; {@link
 * #theScenariosReachEveryRowOfTheTransitionTableInBothRegimes} checks that the paths together cover the database's
 * own table. After every scenario, every call that carried personal data to NotifyNL or the Profielservice has
 * exactly one record the LDV store held before the call arrived, every failed call an ERROR record, and no record
 * holds an address, number or dvRef ({@link LdvRecords}).
 *
 * <p>The NMC has a database of its own here: the conformance environment's NMC runs on the real clock in the
 * same JVM, and its workers must not take these tasks.
 */
class TransitionTableTest {

    private static final String A = "aangenomen";
    private static final String IV = "in-verzending";
    private static final String V = "verzonden";
    private static final String B = "bezorgd";
    private static final String DB = "definitief-bezorgd";
    private static final String NB = "niet-bezorgbaar";
    private static final String TM = "technisch-mislukt";
    private static final String BO = "bezorgstatus-onbekend";
    private static final String VL = "verlopen";
    private static final String G = "geannuleerd";

    /** Past the MEBV period and NotifyNL's callback window (the test configuration's 7 days and 25 minutes). */
    private static final Duration PAST_MEBV = Duration.ofDays(7).plusMinutes(26);
    /** Past the longest backoff of the test configuration (10 s). */
    private static final Duration PAST_BACKOFF = Duration.ofSeconds(11);

    private static final String KVK_NO_CALLBACK = "12345674";
    private static final String KVK_PENDING = "12345675";
    private static final String DELIVERED_ADDRESS = "ontvanger.e2e@example.nl";

    private static TestDatabase database;
    private static Simulators parties;
    private static final TestIam IAM = new TestIam();

    /** The NMC's and NotifyNL's time; it only moves forward, across all scenarios. */
    private static final MutableClock CLOCK = MutableClock.startingNow();

    private final MutableClock clock = CLOCK;
    private final Set<String> dvRefs = new LinkedHashSet<>();
    private Nmc nmc;
    private Http http;

    enum Regime {
        DECENTRAAL,
        CENTRAAL
    }

    /** What NotifyNL does with the e-mail, chosen by the address (decentralised) or the number (centralised). */
    enum Recipient {
        DELIVERS(DELIVERED_ADDRESS, ProfielserviceSimulator.KVK_DELIVERED),
        PERMANENT_FAILURE(NotifyNlSimulator.PERM_FAIL_ADDRESS, ProfielserviceSimulator.KVK_PERM_FAIL),
        TEMPORARY_FAILURE(NotifyNlSimulator.TEMP_FAIL_ADDRESS, ProfielserviceSimulator.KVK_TEMP_FAIL),
        TECHNICAL_FAILURE_WITHOUT_CALLBACK(NotifyNlSimulator.NO_CALLBACK_ADDRESS, KVK_NO_CALLBACK),
        NEVER_REPORTS(NotifyNlSimulator.PENDING_ADDRESS, KVK_PENDING);

        final String address;
        final String kvk;

        Recipient(String address, String kvk) {
            this.address = address;
            this.kvk = kvk;
        }
    }

    @FunctionalInterface
    interface Body {
        UUID run(TransitionTableTest test, Regime regime) throws Exception;
    }

    /** One way through the lifecycle: the statuses the DV sees, in order, and how the test gets there. */
    record Scenario(String name, Set<Regime> regimes, List<String> path, Body body) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static final Set<Regime> BOTH = Set.of(Regime.DECENTRAAL, Regime.CENTRAAL);
    private static final Set<Regime> CENTRAAL_ONLY = Set.of(Regime.CENTRAAL);

    static List<Scenario> scenarios() {
        return List.of(
                new Scenario(
                        "delivered, final after the MEBV period",
                        BOTH,
                        List.of(A, IV, V, B, DB),
                        TransitionTableTest::deliveredAndFinal),
                new Scenario("cancelled before its send", BOTH, List.of(A, G), TransitionTableTest::cancelled),
                new Scenario(
                        "geldigTot passed before the first claim",
                        BOTH,
                        List.of(A, VL),
                        TransitionTableTest::expiredBeforeItsFirstClaim),
                new Scenario(
                        "send task exhausted before a claim commits",
                        BOTH,
                        List.of(A, TM),
                        TransitionTableTest::exhaustedBeforeAClaimCommits),
                new Scenario(
                        "NotifyNL refuses the e-mail",
                        BOTH,
                        List.of(A, IV, NB),
                        TransitionTableTest::refusedByNotifyNl),
                new Scenario(
                        "unknown party",
                        CENTRAAL_ONLY,
                        List.of(A, IV, NB),
                        (t, r) -> t.withoutContactData(ProfielserviceSimulator.KVK_UNKNOWN)),
                new Scenario(
                        "party without an e-mail address",
                        CENTRAAL_ONLY,
                        List.of(A, IV, NB),
                        (t, r) -> t.withoutContactData(ProfielserviceSimulator.KVK_NO_EMAIL)),
                new Scenario(
                        "party with only an unverified address",
                        CENTRAAL_ONLY,
                        List.of(A, IV, NB),
                        (t, r) -> t.withoutContactData(ProfielserviceSimulator.KVK_UNVERIFIED_ONLY)),
                new Scenario(
                        "party deleted at the Profielservice",
                        CENTRAAL_ONLY,
                        List.of(A, IV, NB),
                        (t, r) -> t.withoutContactData(ProfielserviceSimulator.KVK_DELETED)),
                new Scenario(
                        "NotifyNL down until the berichttype's default geldigTot",
                        BOTH,
                        List.of(A, IV, VL),
                        TransitionTableTest::notifyNlDownUntilTheDefaultGeldigTot),
                new Scenario(
                        "Profielservice down until geldigTot",
                        CENTRAAL_ONLY,
                        List.of(A, IV, VL),
                        TransitionTableTest::profielserviceDownUntilGeldigTot),
                new Scenario(
                        "LDV store refusing every record until geldigTot",
                        BOTH,
                        List.of(A, IV, VL),
                        TransitionTableTest::ldvDownUntilGeldigTot),
                new Scenario(
                        "no attempt starts after geldigTot when NotifyNL is back",
                        BOTH,
                        List.of(A, IV, VL),
                        TransitionTableTest::noAttemptAfterGeldigTotWhenNotifyNlIsBack),
                new Scenario(
                        "send task exhausted after its claim",
                        BOTH,
                        List.of(A, IV, TM),
                        TransitionTableTest::exhaustedAfterItsClaim),
                new Scenario(
                        "temporary failure twice",
                        BOTH,
                        List.of(A, IV, V, V, NB),
                        TransitionTableTest::temporaryFailureTwice),
                new Scenario("permanent failure", BOTH, List.of(A, IV, V, NB), TransitionTableTest::permanentFailure),
                new Scenario(
                        "resend answered 400", BOTH, List.of(A, IV, V, V, NB), TransitionTableTest::resendAnswered400),
                new Scenario(
                        "no contact data at the resend",
                        CENTRAAL_ONLY,
                        List.of(A, IV, V, V, NB),
                        TransitionTableTest::noContactDataAtTheResend),
                new Scenario(
                        "resend task exhausted", BOTH, List.of(A, IV, V, TM), TransitionTableTest::resendTaskExhausted),
                new Scenario(
                        "technical failure twice, found by reconciliation",
                        BOTH,
                        List.of(A, IV, V, V, TM),
                        TransitionTableTest::technicalFailureTwice),
                new Scenario(
                        "temporary failure after geldigTot",
                        BOTH,
                        List.of(A, IV, V, VL),
                        TransitionTableTest::temporaryFailureAfterGeldigTot),
                new Scenario(
                        "status query answers 404",
                        BOTH,
                        List.of(A, IV, V, BO),
                        TransitionTableTest::statusQueryAnswers404),
                new Scenario(
                        "retention ends without outcome, then a late delivered",
                        BOTH,
                        List.of(A, IV, V, BO, B, DB),
                        TransitionTableTest::lateDelivered),
                new Scenario(
                        "retention ends without outcome, then a late permanent failure",
                        BOTH,
                        List.of(A, IV, V, BO, NB),
                        TransitionTableTest::latePermanentFailure),
                new Scenario(
                        "temporary failure within the MEBV period: resent and delivered",
                        BOTH,
                        List.of(A, IV, V, B, V, V, B, DB),
                        TransitionTableTest::temporaryFailureWithinTheMebvPeriod),
                new Scenario(
                        "permanent failure within the MEBV period",
                        BOTH,
                        List.of(A, IV, V, B, NB),
                        TransitionTableTest::permanentFailureWithinTheMebvPeriod),
                new Scenario(
                        "temporary failure within the MEBV period after geldigTot",
                        BOTH,
                        List.of(A, IV, V, B, VL),
                        TransitionTableTest::temporaryFailureWithinTheMebvPeriodAfterGeldigTot),
                new Scenario(
                        "delivered under a duplicate NotifyNL id",
                        BOTH,
                        List.of(A, IV, V, B, DB),
                        TransitionTableTest::deliveredUnderADuplicateId),
                new Scenario(
                        "delivered on attempt 1 while the resend waits",
                        BOTH,
                        List.of(A, IV, V, B),
                        TransitionTableTest::deliveredOnAttemptOneWhileTheResendWaits),
                new Scenario(
                        "reconciliation asks every NotifyNL id of the attempt",
                        BOTH,
                        List.of(A, IV, V, B),
                        TransitionTableTest::reconciliationAsksEveryId),
                // issue 18: the seeds' rules made exact
                new Scenario(
                        "a repeat under a new batch id is the same notification",
                        BOTH,
                        List.of(A, IV, V, B, DB),
                        TransitionTableTest::repeatUnderANewBatchId),
                new Scenario(
                        "a second delivered under a duplicate id does not move the proof",
                        BOTH,
                        List.of(A, IV, V, B, DB),
                        TransitionTableTest::secondDeliveredDoesNotMoveTheProof),
                new Scenario(
                        "a delivered on attempt 2 while bezorgd rests on attempt 1 is shown on attempt 2",
                        BOTH,
                        List.of(A, IV, V, V, B, DB),
                        TransitionTableTest::deliveredOnAttemptTwoIsRecordedOnIt),
                new Scenario(
                        "a bounce after the MEBV period is still reported",
                        BOTH,
                        List.of(A, IV, V, B, DB),
                        TransitionTableTest::bounceAfterTheMebvPeriod),
                new Scenario(
                        "the Profielservice down for days: the report waits and is made",
                        CENTRAAL_ONLY,
                        List.of(A, IV, V, NB),
                        TransitionTableTest::reportWaitsOutAProfielserviceOutage));
    }

    static Stream<Arguments> runs() {
        return scenarios().stream()
                .flatMap(scenario -> Stream.of(Regime.values())
                        .filter(scenario.regimes()::contains)
                        .map(regime -> Arguments.of(regime, scenario)));
    }

    @BeforeAll
    static void startParties() {
        database = TestDatabase.separate();
        parties = new Simulators(Duration.ZERO, CLOCK);
    }

    @AfterAll
    static void stopParties() {
        parties.close();
    }

    @BeforeEach
    void start() {
        database.reset();
        parties.reset();
        parties.profielservice.register(Party.kvk(KVK_NO_CALLBACK).email(NotifyNlSimulator.NO_CALLBACK_ADDRESS));
        parties.profielservice.register(Party.kvk(KVK_PENDING).email(NotifyNlSimulator.PENDING_ADDRESS));
        startNmc("");
    }

    @AfterEach
    void stop() {
        nmc.close();
        sql("DROP TRIGGER IF EXISTS test_sabotage ON poging");
        TestLdv.get().heal();
    }

    private void startNmc(String extraConfig) {
        nmc = Nmc.start(
                TestNmc.config(database, IAM, parties.notifyNl.baseUrl(), false, parties.nmcConfig() + extraConfig),
                clock);
        http = Http.of(nmc);
        TestLdv.get().stampInserts();
    }

    @ParameterizedTest(name = "{0}: {1}")
    @MethodSource("runs")
    void theScenarioTakesItsPath(Regime regime, Scenario scenario) throws Exception {
        UUID id = scenario.body().run(this, regime);

        assertThat(pathInTheFeed(id)).as("the DV's feed").containsExactlyElementsOf(scenario.path());
        assertThat(notificatie(id).path("status").asText())
                .isEqualTo(scenario.path().getLast());
        everyCallWithPersonalDataHadItsLdvRecordFirst();
    }

    @Test
    void theScenariosReachEveryRowOfTheTransitionTableInBothRegimes() throws SQLException {
        Set<String> table = new LinkedHashSet<>();
        try (Connection c = database.connect();
                Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("SELECT coalesce(van, '-') || '>' || naar FROM toegestane_overgang")) {
            while (rows.next()) {
                table.add(rows.getString(1));
            }
        }
        assertThat(table).hasSize(21);
        for (Regime regime : Regime.values()) {
            Set<String> reached = new LinkedHashSet<>();
            for (Scenario scenario : scenarios()) {
                if (scenario.regimes().contains(regime)) {
                    List<String> path = scenario.path();
                    reached.add("->" + path.getFirst());
                    for (int i = 1; i < path.size(); i++) {
                        reached.add(path.get(i - 1) + ">" + path.get(i));
                    }
                }
            }
            assertThat(reached).as(regime.name()).containsExactlyInAnyOrderElementsOf(table);
        }
    }

    @ParameterizedTest
    @EnumSource(Regime.class)
    void aSearchFindsTheDvRefUnderEveryPepperVersionAndARepeatStaysIdempotent(Regime regime) {
        Map<String, Object> first = request(regime, Recipient.DELIVERS, "PEPPER-1", Map.of());
        UUID before = acceptBody(regime, first);

        nmc.close();
        startNmc("""
                privacy:
                  pepper:
                    current-version: 2
                    versions:
                      "2": "dGVzdC1wZXBwZXItdHdvLTAxMjM0NTY3ODlhYmNkZWYwMTIzNDU2Nzg5"
                """);
        Http.Response repeat = http.post(acceptPath(regime), token(), Http.json(first));
        assertThat(repeat.status()).as(repeat.body()).isIn(200, 202);
        assertThat(repeat.json().path("id").asText())
                .as("idempotent across pepper versions")
                .isEqualTo(before.toString());
        Map<String, Object> second = new HashMap<>(first);
        second.put("personalisation", Map.of("onderwerp", "Tweede bericht"));
        UUID after = acceptBody(regime, second);
        assertThat(after).isNotEqualTo(before);
        assertThat(query("SELECT pepper_versie FROM notificatie ORDER BY pepper_versie", null))
                .containsExactly("1", "2");

        JsonNode found =
                http.get("/api/nmc/v1/notificaties?dvRef=PEPPER-1", token()).json();
        List<String> ids = new ArrayList<>();
        found.path("notificaties").forEach(n -> ids.add(n.path("id").asText()));
        assertThat(ids).containsExactlyInAnyOrder(before.toString(), after.toString());
    }

    // ---------------------------------------------------------------------------------------------------
    // Scenarios
    // ---------------------------------------------------------------------------------------------------

    private UUID deliveredAndFinal(Regime regime) {
        UUID id = accept(regime, Recipient.DELIVERS);
        settle();
        assertThat(notificatie(id).path("status").asText()).isEqualTo(B);
        if (regime == Regime.CENTRAAL) {
            assertThat(parties.notifyNl.sentNotifications())
                    .singleElement()
                    .extracting(s -> s.emailAddress())
                    .as("the Profielservice's address")
                    .isEqualTo(ProfielserviceSimulator.DEV_EMAILADRES);
        }
        advance(PAST_MEBV.minusMinutes(2));
        assertThat(notificatie(id).path("status").asText()).isEqualTo(B);
        advance(Duration.ofMinutes(2));
        return id;
    }

    private UUID cancelled(Regime regime) {
        UUID id = accept(regime, Recipient.DELIVERS);
        assertThat(http.delete("/api/nmc/v1/notificaties/" + id, token()).status())
                .isEqualTo(200);
        settle();
        assertThat(parties.notifyNl.sentNotifications()).isEmpty();
        assertThat(parties.profielservice.calls()).isEmpty();
        return id;
    }

    private UUID expiredBeforeItsFirstClaim(Regime regime) {
        UUID id = accept(
                regime,
                Recipient.DELIVERS,
                Map.of("geldigTot", clock.instant().plusSeconds(60).toString()));
        clock.advance(Duration.ofMinutes(2));
        settle();
        assertThat(parties.notifyNl.sentNotifications()).isEmpty();
        assertThat(parties.profielservice.calls()).isEmpty();
        assertThat(notificatie(id).path("reden").asText()).isEqualTo("verlopen");
        return id;
    }

    private UUID exhaustedBeforeAClaimCommits(Regime regime) {
        UUID id = accept(regime, Recipient.DELIVERS);
        sabotageAttempt(id, 1);
        retryUntilExhausted();
        assertThat(notificatie(id).path("reden").asText()).isEqualTo("technisch");
        assertThat(parties.notifyNl.sentNotifications()).isEmpty();
        return id;
    }

    private UUID refusedByNotifyNl(Regime regime) {
        refuseSends();
        UUID id = accept(regime, Recipient.DELIVERS);
        settle();
        assertThat(notificatie(id).path("reden").asText()).isEqualTo("onbereikbaar");
        return id;
    }

    private UUID withoutContactData(String kvk) {
        UUID id = acceptBody(
                Regime.CENTRAAL,
                Map.of(
                        "dvRef",
                        dvRef(),
                        "berichttype",
                        TestNmc.BERICHTTYPE,
                        "identificatieType",
                        "KVK",
                        "identificatieNummer",
                        kvk,
                        "personalisation",
                        Map.of("onderwerp", "E2E")));
        settle();
        assertThat(notificatie(id).path("reden").asText()).isEqualTo("geen-contactgegevens");
        assertThat(parties.notifyNl.wireMock().getAllServeEvents())
                .as("nothing went to NotifyNL")
                .isEmpty();
        assertThat(parties.profielservice.deletes())
                .as("no address, nothing to report")
                .isEmpty();
        return id;
    }

    private UUID notifyNlDownUntilTheDefaultGeldigTot(Regime regime) {
        parties.notifyNl
                .wireMock()
                .stubFor(post(urlPathEqualTo("/v2/notifications/email"))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(503)
                                .withHeader("Content-Type", "application/json")
                                .withBody(NotifyNlSimulator.errorBody(503, "ServiceUnavailable", "simulated outage"))));
        Instant accepted = clock.instant();
        UUID id = acceptBody(
                regime, request(regime, Recipient.DELIVERS, dvRef(), Map.of("berichttype", TestNmc.BERICHTTYPE_SHORT)));
        assertThat(Instant.parse(notificatie(id).path("geldigTot").asText()))
                .as("the berichttype's default: one hour")
                .isBetween(accepted.plus(Duration.ofMinutes(59)), accepted.plus(Duration.ofMinutes(61)));
        for (int round = 0; round < 5; round++) {
            advance(PAST_BACKOFF);
        }
        assertThat(notificatie(id).path("status").asText()).isEqualTo(IV);
        assertThat(pogingen(id)).as("an outage counts no attempt").containsExactly("1:gepland");
        advance(Duration.ofHours(1));
        assertThat(parties.notifyNl.sentNotifications()).isEmpty();
        return id;
    }

    private UUID profielserviceDownUntilGeldigTot(Regime regime) {
        parties.profielservice
                .wireMock()
                .stubFor(post(urlPathEqualTo(ProfielserviceSimulator.PARTIJ_PATH))
                        .atPriority(1)
                        .willReturn(ProfielserviceSimulator.unavailable()));
        UUID id = accept(
                regime,
                Recipient.DELIVERS,
                Map.of("geldigTot", clock.instant().plusSeconds(60).toString()));
        settle();
        advance(PAST_BACKOFF);
        assertThat(notificatie(id).path("status").asText()).isEqualTo(IV);
        advance(Duration.ofMinutes(1));
        assertThat(parties.notifyNl.wireMock().getAllServeEvents()).isEmpty();
        return id;
    }

    private UUID ldvDownUntilGeldigTot(Regime regime) {
        TestLdv.get().failInserts("53100", "TRUE");
        UUID id = accept(
                regime,
                Recipient.DELIVERS,
                Map.of("geldigTot", clock.instant().plusSeconds(60).toString()));
        settle();
        advance(PAST_BACKOFF);
        assertThat(notificatie(id).path("status").asText()).isEqualTo(IV);
        advance(Duration.ofMinutes(1));
        assertThat(parties.notifyNl.wireMock().getAllServeEvents())
                .as("nothing without its record")
                .isEmpty();
        assertThat(parties.profielservice.calls()).isEmpty();
        TestLdv.get().heal();
        return id;
    }

    private UUID noAttemptAfterGeldigTotWhenNotifyNlIsBack(Regime regime) {
        StubMapping outage = parties.notifyNl
                .wireMock()
                .stubFor(post(urlPathEqualTo("/v2/notifications/email"))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(500)
                                .withHeader("Content-Type", "application/json")
                                .withBody(NotifyNlSimulator.errorBody(500, "Exception", "Internal server error"))));
        UUID id = accept(
                regime,
                Recipient.DELIVERS,
                Map.of("geldigTot", clock.instant().plusSeconds(60).toString()));
        settle();
        clock.advance(Duration.ofMinutes(2));
        parties.notifyNl.wireMock().removeStub(outage);
        settle();
        assertThat(parties.notifyNl.sentNotifications())
                .as("NotifyNL is back, but geldigTot has passed")
                .isEmpty();
        return id;
    }

    private UUID exhaustedAfterItsClaim(Regime regime) {
        UUID id = accept(regime, Recipient.DELIVERS);
        // An NMC-internal failure after the claim committed: the data key cannot be unwrapped.
        execute("UPDATE notificatie SET datasleutel_gewrapt = '\\x00' WHERE id = ?", id);
        retryUntilExhausted();
        assertThat(parties.notifyNl.sentNotifications()).isEmpty();
        return id;
    }

    private UUID temporaryFailureTwice(Regime regime) {
        UUID id = accept(regime, Recipient.TEMPORARY_FAILURE);
        settle();
        assertThat(pogingen(id)).containsExactly("1:tijdelijk-mislukt", "2:tijdelijk-mislukt");
        assertThat(notificatie(id).path("reden").asText()).isEqualTo("onbereikbaar");
        return id;
    }

    private UUID permanentFailure(Regime regime) {
        UUID id = accept(regime, Recipient.PERMANENT_FAILURE);
        settle();
        assertReportedInvalidOnlyWhenCentralised(regime, id);
        return id;
    }

    private UUID resendAnswered400(Regime regime) {
        UUID id = accept(regime, Recipient.TEMPORARY_FAILURE);
        ManualRunner.of(nmc).runWorkersOnce();
        refuseSends();
        settle();
        assertThat(pogingen(id)).containsExactly("1:tijdelijk-mislukt", "2:permanent-mislukt");
        assertThat(parties.profielservice.deletes())
                .as("a refusal is no bounce")
                .isEmpty();
        return id;
    }

    private UUID noContactDataAtTheResend(Regime regime) {
        UUID id = accept(regime, Recipient.TEMPORARY_FAILURE);
        ManualRunner.of(nmc).runWorkersOnce();
        // The party's only address is gone by the resend (a phone number is all that is left).
        parties.profielservice.register(
                Party.kvk(ProfielserviceSimulator.KVK_TEMP_FAIL).phone("0612345678"));
        settle();
        assertThat(notificatie(id).path("reden").asText()).isEqualTo("geen-contactgegevens");
        assertThat(pogingen(id)).containsExactly("1:tijdelijk-mislukt", "2:permanent-mislukt");
        return id;
    }

    private UUID resendTaskExhausted(Regime regime) {
        UUID id = accept(regime, Recipient.TEMPORARY_FAILURE);
        sabotageAttempt(id, 2);
        retryUntilExhausted();
        assertThat(notificatie(id).path("reden").asText()).isEqualTo("technisch");
        assertThat(parties.notifyNl.sentNotifications()).hasSize(1);
        return id;
    }

    private UUID technicalFailureTwice(Regime regime) {
        UUID id = accept(regime, Recipient.TECHNICAL_FAILURE_WITHOUT_CALLBACK);
        settle();
        advance(Duration.ofMinutes(61));
        assertThat(pogingen(id)).containsExactly("1:technisch-mislukt", "2:verzonden");
        advance(Duration.ofMinutes(61));
        assertThat(notificatie(id).path("reden").asText()).isEqualTo("technisch");
        return id;
    }

    private UUID temporaryFailureAfterGeldigTot(Regime regime) {
        UUID id = accept(
                regime,
                Recipient.TEMPORARY_FAILURE,
                Map.of("geldigTot", clock.instant().plus(Duration.ofMinutes(30)).toString()));
        ManualRunner.of(nmc).runWorkersOnce();
        awaitParties();
        clock.advance(Duration.ofMinutes(31));
        settle();
        assertThat(parties.notifyNl.sentNotifications())
                .as("no resend after geldigTot")
                .hasSize(1);
        return id;
    }

    private UUID statusQueryAnswers404(Regime regime) {
        UUID id = accept(regime, Recipient.NEVER_REPORTS);
        settle();
        parties.notifyNl.forget(notifyId(id, 1));
        advance(Duration.ofMinutes(61));
        assertThat(pogingen(id)).containsExactly("1:onbekend");
        return id;
    }

    private UUID lateDelivered(Regime regime) {
        UUID id = untilNotifyNlsRetentionEnds(regime);
        parties.notifyNl.laterOutcome(notifyId(id, 1), "delivered");
        settle();
        assertThat(notificatie(id).path("status").asText()).isEqualTo(B);
        advance(PAST_MEBV);
        return id;
    }

    private UUID latePermanentFailure(Regime regime) {
        UUID id = untilNotifyNlsRetentionEnds(regime);
        parties.notifyNl.laterOutcome(notifyId(id, 1), "permanent-failure");
        settle();
        assertReportedInvalidOnlyWhenCentralised(regime, id);
        return id;
    }

    private UUID untilNotifyNlsRetentionEnds(Regime regime) {
        UUID id = accept(regime, Recipient.NEVER_REPORTS);
        settle();
        for (int day = 0; day < 8; day++) {
            advance(Duration.ofDays(1));
        }
        assertThat(notificatie(id).path("status").asText()).isEqualTo(BO);
        long queries = parties.notifyNl.wireMock().getAllServeEvents().stream()
                .filter(e -> e.getRequest().getUrl().startsWith("/v2/notifications/" + notifyId(id, 1)))
                .count();
        assertThat(queries)
                .as("asked again and again until the retention ended")
                .isGreaterThanOrEqualTo(3);
        return id;
    }

    private UUID temporaryFailureWithinTheMebvPeriod(Regime regime) {
        UUID id = accept(regime, Recipient.DELIVERS);
        settle();
        advance(Duration.ofDays(1));
        parties.notifyNl.laterOutcome(notifyId(id, 1), "temporary-failure");
        settle();
        assertThat(pogingen(id)).containsExactly("1:tijdelijk-mislukt", "2:bezorgd");
        advance(PAST_MEBV);
        return id;
    }

    private UUID permanentFailureWithinTheMebvPeriod(Regime regime) {
        UUID id = accept(regime, Recipient.DELIVERS);
        settle();
        advance(Duration.ofDays(3));
        parties.notifyNl.laterOutcome(notifyId(id, 1), "permanent-failure");
        settle();
        advance(PAST_MEBV);
        assertReportedInvalidOnlyWhenCentralised(regime, id);
        return id;
    }

    private UUID temporaryFailureWithinTheMebvPeriodAfterGeldigTot(Regime regime) {
        UUID id = accept(
                regime,
                Recipient.DELIVERS,
                Map.of("geldigTot", clock.instant().plus(Duration.ofMinutes(30)).toString()));
        settle();
        advance(Duration.ofHours(1));
        parties.notifyNl.laterOutcome(notifyId(id, 1), "temporary-failure");
        settle();
        assertThat(parties.notifyNl.sentNotifications())
                .as("no resend after geldigTot")
                .hasSize(1);
        return id;
    }

    private UUID deliveredUnderADuplicateId(Regime regime) {
        UUID id = accept(regime, Recipient.NEVER_REPORTS);
        settle();
        UUID duplicate = parties.notifyNl.duplicate(notifyId(id, 1), "delivered");
        settle();
        assertThat(query("SELECT array_to_string(duplicaat_notify_ids, ',') FROM poging WHERE notificatie = ?", id))
                .containsExactly(duplicate.toString());
        advance(PAST_MEBV);
        return id;
    }

    private UUID deliveredOnAttemptOneWhileTheResendWaits(Regime regime) {
        UUID id = accept(regime, Recipient.TEMPORARY_FAILURE);
        ManualRunner.of(nmc).runWorkersOnce();
        awaitParties();
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERWERKEN);
        assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ? AND soort = 'verzenden'", id))
                .as("the resend waits")
                .containsExactly("1");

        clock.advance(Duration.ofSeconds(1));
        parties.notifyNl.laterOutcome(notifyId(id, 1), "delivered");
        awaitParties();
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERWERKEN);
        assertThat(notificatie(id).path("status").asText()).isEqualTo(B);
        settle();
        assertThat(parties.notifyNl.sentNotifications())
                .as("the resend completed without sending")
                .hasSize(1);
        assertThat(pogingen(id)).containsExactly("1:bezorgd");
        return id;
    }

    private UUID reconciliationAsksEveryId(Regime regime) {
        UUID id = accept(regime, Recipient.NEVER_REPORTS);
        settle();
        UUID own = notifyId(id, 1);
        // NotifyNL accepted the e-mail twice and the NMC knows both ids (as a receipt under the second id would
        // have told it), but the second id's receipt was lost: only asking NotifyNL by that id finds the outcome.
        UUID duplicate = parties.notifyNl.duplicate(own, "delivered", false);
        execute(
                "UPDATE poging SET duplicaat_notify_ids = ARRAY[CAST('" + duplicate + "' AS uuid)] "
                        + "WHERE notificatie = ?",
                id);
        advance(Duration.ofMinutes(61));
        for (UUID asked : List.of(own, duplicate)) {
            assertThat(parties.notifyNl.wireMock().getAllServeEvents().stream()
                            .filter(e -> e.getRequest().getUrl().equals("/v2/notifications/" + asked))
                            .count())
                    .as("asked by " + asked)
                    .isEqualTo(1);
        }
        assertThat(parties.notifyNl.wireMock().getAllServeEvents().stream()
                        .filter(e -> e.getRequest().getUrl().startsWith("/v2/notifications?"))
                        .count())
                .as("by reference only when no id is known")
                .isZero();
        return id;
    }

    /** Issue 18 §1: the batch id only groups a submission; a repeat under another one is the same notification. */
    private UUID repeatUnderANewBatchId(Regime regime) {
        Map<String, Object> first = request(regime, Recipient.DELIVERS, dvRef(), Map.of("batchId", "b1"));
        UUID id = acceptBody(regime, first);
        Map<String, Object> repeat = new HashMap<>(first);
        repeat.put("batchId", "b2");
        Http.Response again = http.post(acceptPath(regime), token(), Http.json(repeat));
        assertThat(again.status()).as(again.body()).isIn(200, 202);
        assertThat(again.json().path("id").asText()).isEqualTo(id.toString());
        settle();
        assertThat(parties.notifyNl.sentNotifications()).as("one e-mail").hasSize(1);
        assertThat(notificatie(id).path("batchId").asText()).isEqualTo("b1");
        advance(PAST_MEBV);
        return id;
    }

    /**
     * Issue 18 §2: a later delivered under a duplicate NotifyNL id moves neither bezorgdOp nor the finalisation,
     * which comes the MEBV period after the first delivery.
     */
    private UUID secondDeliveredDoesNotMoveTheProof(Regime regime) {
        UUID id = accept(regime, Recipient.DELIVERS);
        settle();
        String proof = notificatie(id).path("bezorgdOp").asText();
        assertThat(proof).isNotBlank();
        advance(Duration.ofDays(1));
        UUID duplicate = parties.notifyNl.duplicate(notifyId(id, 1), "delivered");
        settle();
        assertThat(query("SELECT array_to_string(duplicaat_notify_ids, ',') FROM poging WHERE notificatie = ?", id))
                .containsExactly(duplicate.toString());
        assertThat(notificatie(id).path("bezorgdOp").asText())
                .as("the first delivery is the proof")
                .isEqualTo(proof);
        advance(PAST_MEBV.minusDays(1));
        return id;
    }

    /**
     * Issue 18 §3: attempt 1 fails temporarily, the resend goes out, a delivered on attempt 1 (a duplicate's) makes
     * the notification bezorgd on attempt 1; attempt 2's own delivered is then recorded on attempt 2 and shown, and
     * its reconciliation ends.
     */
    private UUID deliveredOnAttemptTwoIsRecordedOnIt(Regime regime) {
        UUID id = accept(regime, Recipient.NEVER_REPORTS);
        settle();
        parties.notifyNl.laterOutcome(notifyId(id, 1), "temporary-failure");
        settle();
        assertThat(pogingen(id)).containsExactly("1:tijdelijk-mislukt", "2:verzonden");
        clock.advance(Duration.ofSeconds(1));
        parties.notifyNl.duplicate(notifyId(id, 1), "delivered");
        settle();
        assertThat(notificatie(id).path("status").asText()).isEqualTo(B);
        clock.advance(Duration.ofSeconds(1));
        parties.notifyNl.laterOutcome(notifyId(id, 2), "delivered");
        settle();
        assertThat(pogingen(id)).containsExactly("1:bezorgd", "2:bezorgd");
        JsonNode pogingen = notificatie(id).path("pogingen");
        assertThat(pogingen.get(0).path("bezorgbewijs").asBoolean()).isTrue();
        assertThat(pogingen.get(1).path("bezorgbewijs").asBoolean()).isFalse();
        assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ? AND soort = 'reconcilieren'", id))
                .as("attempt 2's reconciliation ended with its recorded outcome")
                .containsExactly("0");
        advance(PAST_MEBV);
        return id;
    }

    /**
     * Issue 18 §4: a bounce after the MEBV period changes nothing for the DV (definitief-bezorgd stays) but is
     * recorded on its attempt and, centralised, reported to the Profielservice.
     */
    private UUID bounceAfterTheMebvPeriod(Regime regime) {
        UUID id = accept(regime, Recipient.DELIVERS);
        settle();
        advance(PAST_MEBV);
        assertThat(notificatie(id).path("status").asText()).isEqualTo(DB);
        parties.notifyNl.laterOutcome(notifyId(id, 1), "permanent-failure");
        settle();
        assertReportedInvalidOnlyWhenCentralised(regime, id);
        assertThat(pogingen(id)).containsExactly("1:permanent-mislukt");
        return id;
    }

    /**
     * Issue 18 §5: an invalid-address report the Profielservice refuses for days is postponed (at most a day between
     * tries), never parked, and made once it is back.
     */
    private UUID reportWaitsOutAProfielserviceOutage(Regime regime) {
        StubMapping outage = parties.profielservice
                .wireMock()
                .stubFor(com.github.tomakehurst.wiremock.client.WireMock.delete(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching(
                                        ProfielserviceSimulator.CONTACTGEGEVEN_PATH + "/.*"))
                        .atPriority(1)
                        .willReturn(ProfielserviceSimulator.unavailable()));
        UUID id = accept(regime, Recipient.PERMANENT_FAILURE);
        settle();
        for (int day = 1; day <= 3; day++) {
            advance(Duration.ofDays(1));
            assertThat(query("SELECT status FROM taak WHERE notificatie = ? AND soort = 'ongeldig-melden'", id))
                    .as("day %d: waiting, never parked", day)
                    .containsExactly("open");
        }
        assertThat(parties.profielservice.deletes()).isEmpty();
        parties.profielservice.wireMock().removeStub(outage);
        advance(Duration.ofDays(1));
        assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ? AND soort = 'ongeldig-melden'", id))
                .containsExactly("0");
        assertReportedInvalidOnlyWhenCentralised(regime, id);
        return id;
    }

    // ---------------------------------------------------------------------------------------------------
    // Driving the NMC and the parties
    // ---------------------------------------------------------------------------------------------------

    private void settle() {
        Rounds.settle(nmc, parties.notifyNl);
    }

    private boolean awaitParties() {
        return Rounds.awaitParties(parties.notifyNl);
    }

    private void advance(Duration duration) {
        clock.advance(duration);
        settle();
    }

    /** Retries the failing send task past each backoff until the berichttype's five failures exhaust it. */
    private void retryUntilExhausted() {
        for (int round = 0; round < 7; round++) {
            advance(PAST_BACKOFF);
        }
    }

    /** Every POST to NotifyNL is refused with a 400 (an address NotifyNL will not send to). */
    private void refuseSends() {
        parties.notifyNl
                .wireMock()
                .stubFor(post(urlPathEqualTo("/v2/notifications/email"))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(400)
                                .withHeader("Content-Type", "application/json")
                                .withBody(NotifyNlSimulator.errorBody(
                                        400, "ValidationError", "email_address Not a valid email address"))));
    }

    /** An NMC-internal failure: creating this attempt of this notification fails inside the database. */
    private void sabotageAttempt(UUID id, int number) {
        sql("""
                CREATE OR REPLACE FUNCTION test_sabotage() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN RAISE EXCEPTION 'sabotaged by the test'; END $$""");
        sql("CREATE TRIGGER test_sabotage BEFORE INSERT ON poging FOR EACH ROW WHEN (NEW.notificatie = '" + id
                + "' AND NEW.nummer = " + number + ") EXECUTE FUNCTION test_sabotage()");
    }

    private void assertReportedInvalidOnlyWhenCentralised(Regime regime, UUID id) {
        if (regime == Regime.CENTRAAL) {
            assertThat(parties.profielservice.deletes()).singleElement().satisfies(delete -> {
                assertThat(delete.identificatieNummer()).isNotBlank();
                assertThat(delete.status())
                        .as("the address that bounced, deleted once")
                        .isEqualTo(204);
            });
        } else {
            assertThat(parties.profielservice.calls()).isEmpty();
        }
    }

    /**
     * Every call to NotifyNL and the Profielservice had exactly one record in the LDV store, stored before the call
     * arrived, and every failed call an ERROR record ({@link LdvRecords}); no record holds an address, a number or a
     * dvRef.
     */
    private void everyCallWithPersonalDataHadItsLdvRecordFirst() {
        List<String> secrets = new ArrayList<>(dvRefs);
        for (Recipient recipient : Recipient.values()) {
            secrets.add(recipient.address);
            secrets.add(recipient.kvk);
        }
        secrets.add(ProfielserviceSimulator.DEV_EMAILADRES);
        LdvRecords.assertEveryCallRecordedFirst(parties, secrets);
    }

    // ---------------------------------------------------------------------------------------------------
    // The DV's side
    // ---------------------------------------------------------------------------------------------------

    private String token() {
        return IAM.token(TestNmc.DV_A, clock.instant());
    }

    private String dvRef() {
        String dvRef = "E2E-" + UUID.randomUUID();
        dvRefs.add(dvRef);
        return dvRef;
    }

    private UUID accept(Regime regime, Recipient recipient) {
        return accept(regime, recipient, Map.of());
    }

    private UUID accept(Regime regime, Recipient recipient, Map<String, Object> extra) {
        return acceptBody(regime, request(regime, recipient, dvRef(), extra));
    }

    private Map<String, Object> request(Regime regime, Recipient recipient, String dvRef, Map<String, Object> extra) {
        dvRefs.add(dvRef);
        Map<String, Object> body = new HashMap<>(Map.of(
                "dvRef", dvRef, "berichttype", TestNmc.BERICHTTYPE, "personalisation", Map.of("onderwerp", "E2E")));
        if (regime == Regime.CENTRAAL) {
            body.put("identificatieType", "KVK");
            body.put("identificatieNummer", recipient.kvk);
        } else {
            body.put("emailadres", recipient.address);
        }
        body.putAll(extra);
        return body;
    }

    private UUID acceptBody(Regime regime, Map<String, Object> body) {
        Http.Response response = http.post(acceptPath(regime), token(), Http.json(body));
        assertThat(response.status()).as(response.body()).isEqualTo(202);
        return UUID.fromString(response.json().path("id").asText());
    }

    private static String acceptPath(Regime regime) {
        return regime == Regime.CENTRAAL ? "/api/nmc/v1/centraal/notificaties" : "/api/nmc/v1/decentraal/notificaties";
    }

    private JsonNode notificatie(UUID id) {
        Http.Response response = http.get("/api/nmc/v1/notificaties/" + id, token());
        assertThat(response.status()).isEqualTo(200);
        return response.json();
    }

    /**
     * The statuses of the notification's events, read from the DV's feed. The feed shows an event once no older
     * transaction anywhere in the database cluster is still running (its watermark), so under load — other
     * tests on the same cluster — the last event may show a moment later: read until all its versions are there.
     */
    private List<String> pathInTheFeed(UUID id) {
        int version = notificatie(id).path("versie").asInt();
        Instant deadline = Instant.now().plusSeconds(15);
        List<String> path = readFeed(id);
        while (path.size() < version && Instant.now().isBefore(deadline)) {
            try {
                Thread.sleep(50);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            path = readFeed(id);
        }
        return path;
    }

    private List<String> readFeed(UUID id) {
        List<String> path = new ArrayList<>();
        String cursor = null;
        while (true) {
            JsonNode page = http.get(
                            "/api/nmc/v1/notificaties/wijzigingen" + (cursor == null ? "" : "?cursor=" + cursor),
                            token())
                    .json();
            if (page.path("events").isEmpty()) {
                return path;
            }
            page.path("events").forEach(event -> {
                if (event.path("subject").asText().equals(id.toString())) {
                    path.add(event.path("data").path("naar").asText());
                }
            });
            cursor = page.path("cursor").asText();
        }
    }

    // ---------------------------------------------------------------------------------------------------
    // Database reads (tests only look; the sabotage trigger is the one write that stands in for a fault)
    // ---------------------------------------------------------------------------------------------------

    private UUID notifyId(UUID id, int number) {
        return UUID.fromString(query("SELECT notify_id FROM poging WHERE notificatie = ? AND nummer = " + number, id)
                .getFirst());
    }

    private List<String> pogingen(UUID id) {
        return query("SELECT nummer || ':' || status FROM poging WHERE notificatie = ? ORDER BY nummer", id);
    }

    private static List<String> query(String sql, UUID parameter) {
        return database.query(sql, parameter);
    }

    private static void execute(String sql, UUID parameter) {
        database.execute(sql, parameter);
    }

    private static void sql(String sql) {
        database.execute(sql, null);
    }
}
