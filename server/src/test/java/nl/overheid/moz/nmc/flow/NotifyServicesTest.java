package nl.overheid.moz.nmc.flow;

import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import com.nimbusds.jose.crypto.MACVerifier;
import com.nimbusds.jwt.SignedJWT;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.TestLdv;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;

/**
 * A budget and a key per NotifyNL service (design §6): a berichttype's notifications are sent and looked up with
 * the key of its berichttype's service (the JWT's {@code iss} and signature, checked here against each service's
 * secret), each service's sends per window stay within its own limit while the other service's work goes on, a
 * send that makes no call gives its token back while a failed call keeps it, a receipt callback speaks only for
 * the services its token is configured for, and a berichttype whose service has no configuration stops the start.
 *
 * <p>The test configuration's services: {@code standaard} ({@link TestNmc#BERICHTTYPE}) and {@code tweede}
 * ({@link TestNmc#BERICHTTYPE_B}), each with its own key; here limited to 10 and 20 a minute (9 and 18 sends, the
 * rest is reconciliation's share).
 */
class NotifyServicesTest extends LifecycleTestBase {

    private static final String LIMITS = """
            notifynl:
              services:
                standaard:
                  per-minute: 10
                tweede:
                  per-minute: 20
            """;
    private static final String SERVICE_A = TestNmc.NOTIFY_API_KEY.substring(
            TestNmc.NOTIFY_API_KEY.length() - 73, TestNmc.NOTIFY_API_KEY.length() - 37);
    private static final String SERVICE_B = TestNmc.NOTIFY_API_KEY_B.substring(
            TestNmc.NOTIFY_API_KEY_B.length() - 73, TestNmc.NOTIFY_API_KEY_B.length() - 37);
    private static final ObjectMapper JSON = new ObjectMapper();

    private int dvRefs;

    /** Accepts a notification of {@code berichttype} for DV A. */
    private UUID accept(String berichttype) {
        Map<String, Object> body = new HashMap<>(
                Map.of("dvRef", "DOSSIER-" + (++dvRefs), "berichttype", berichttype, "emailadres", EMAIL));
        Http.Response response = http.post("/api/nmc/v1/decentraal/notificaties", tokenA(), Http.json(body));
        assertThat(response.status()).as(response.body()).isEqualTo(202);
        return UUID.fromString(response.json().path("id").asText());
    }

    private void acceptMany(String berichttype, int count) {
        for (int i = 0; i < count; i++) {
            accept(berichttype);
        }
    }

    /** The NMC's clock to one second into the next minute, so what follows falls in one budget window. */
    private void toTheStartOfANewWindow() {
        clock.advance(Duration.between(
                clock.instant(), clock.instant().truncatedTo(ChronoUnit.MINUTES).plusSeconds(61)));
    }

    /** Send claim rounds until one claims nothing. */
    private void drainSends() {
        while (ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN) > 0) {
            // the next round
        }
    }

    private List<LoggedRequest> posts() {
        return notify.server().findAll(postRequestedFor(urlPathEqualTo("/v2/notifications/email")));
    }

    /** The service id a request's JWT names as {@code iss}, after checking its signature with that service's secret. */
    private static String signedBy(LoggedRequest request) throws Exception {
        SignedJWT jwt = SignedJWT.parse(request.getHeader("Authorization").substring("Bearer ".length()));
        String issuer = jwt.getJWTClaimsSet().getIssuer();
        String key = issuer.equals(SERVICE_A)
                ? TestNmc.NOTIFY_API_KEY
                : issuer.equals(SERVICE_B) ? TestNmc.NOTIFY_API_KEY_B : null;
        assertThat(key).as("iss is one of the services").isNotNull();
        String other = key.equals(TestNmc.NOTIFY_API_KEY) ? TestNmc.NOTIFY_API_KEY_B : TestNmc.NOTIFY_API_KEY;
        assertThat(jwt.verify(new MACVerifier(secret(key))))
                .as("signed with the secret of its iss")
                .isTrue();
        assertThat(jwt.verify(new MACVerifier(secret(other))))
                .as("not with the other service's")
                .isFalse();
        return issuer;
    }

    private static byte[] secret(String apiKey) {
        return apiKey.substring(apiKey.length() - 36).getBytes(StandardCharsets.UTF_8);
    }

    private long sentBy(String serviceId) throws Exception {
        long sent = 0;
        for (LoggedRequest post : posts()) {
            if (signedBy(post).equals(serviceId)) {
                sent++;
            }
        }
        return sent;
    }

    /**
     * Issue 18 §7: a service of 5 a minute rounded reconciliation's share (0.1) down to 0 tokens, so its verzonden
     * notifications were never reconciled; it gets one token a window.
     */
    @Test
    void aServiceWithASmallLimitStillReconcilesEveryWindow() {
        restartWithConfig("notifynl: {services: {standaard: {per-minute: 5}}}");
        UUID id = accept(TestNmc.BERICHTTYPE);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verzonden:3");
        notify.status(notifyId(id, 1), "delivered", clock.instant());

        clock.advance(Duration.ofMinutes(61));
        ManualRunner.of(nmc).runWorkersOnce();
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(notify.server().findAll(getRequestedFor(urlPathEqualTo("/v2/notifications/" + notifyId(id, 1)))))
                .as("asked NotifyNL with reconciliation's one token")
                .hasSize(1);
        assertThat(status(id)).isEqualTo("bezorgd:4");
    }

    @Test
    void aBerichttypeOfTheSecondServiceIsSentAndLookedUpWithThatServicesKey() throws Exception {
        UUID a = accept(TestNmc.BERICHTTYPE);
        UUID b = accept(TestNmc.BERICHTTYPE_B);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(a)).isEqualTo("verzonden:3");
        assertThat(status(b)).isEqualTo("verzonden:3");

        Map<String, String> templateOfService = new HashMap<>();
        for (LoggedRequest post : posts()) {
            templateOfService.put(
                    signedBy(post),
                    JSON.readTree(post.getBodyAsString()).path("template_id").asText());
        }
        assertThat(templateOfService)
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(SERVICE_A, TestNmc.TEMPLATE_ID, SERVICE_B, TestNmc.TEMPLATE_ID_B));

        // No receipt: an hour later reconciliation asks NotifyNL, each with the key of the service that sent it.
        String notifyIdB = notifyId(b, 1);
        String notifyIdA = notifyId(a, 1);
        notify.status(notifyIdA, "sending", null);
        notify.status(notifyIdB, "sending", null);
        clock.advance(Duration.ofHours(1).plusSeconds(1));
        assertThat(ManualRunner.of(nmc).runWorkerOnce(TaskKind.RECONCILIEREN)).isEqualTo(2);
        List<LoggedRequest> lookups = notify.server().findAll(getRequestedFor(urlPathMatching("/v2/notifications/.+")));
        assertThat(lookups).hasSize(2);
        for (LoggedRequest lookup : lookups) {
            assertThat(signedBy(lookup))
                    .as(lookup.getUrl())
                    .isEqualTo(lookup.getUrl().endsWith(notifyIdB) ? SERVICE_B : SERVICE_A);
        }
    }

    @Test
    void eachServicesSendsPerWindowStayWithinItsOwnLimitWhileTheOtherServicesWorkGoesOn() throws Exception {
        restartWithConfig(LIMITS);
        toTheStartOfANewWindow();
        acceptMany(TestNmc.BERICHTTYPE, 12);
        acceptMany(TestNmc.BERICHTTYPE_B, 25);

        drainSends();
        assertThat(sentBy(SERVICE_A))
                .as("standaard: 10 a minute, 9 for sending")
                .isEqualTo(9);
        assertThat(sentBy(SERVICE_B))
                .as("tweede: its own 18 in the same window")
                .isEqualTo(18);

        clock.advance(Duration.ofMinutes(1));
        drainSends();
        assertThat(sentBy(SERVICE_A)).as("the rest in the next window").isEqualTo(12);
        assertThat(sentBy(SERVICE_B)).isEqualTo(25);
    }

    @Test
    void aServiceWhoseWindowIsUsedUpDoesNotHoldBackAnotherServicesNotifications() throws Exception {
        restartWithConfig(LIMITS);
        toTheStartOfANewWindow();
        acceptMany(TestNmc.BERICHTTYPE, 15);
        drainSends();
        assertThat(sentBy(SERVICE_A)).isEqualTo(9);

        clock.advance(Duration.ofSeconds(10));
        UUID b = accept(TestNmc.BERICHTTYPE_B);
        drainSends();
        assertThat(status(b))
                .as("standaard's older backlog waits; tweede's work does not")
                .isEqualTo("verzonden:3");
        assertThat(sentBy(SERVICE_A)).isEqualTo(9);
    }

    @Test
    void aSendThatMakesNoCallGivesItsTokenBackSoTheWindowIsSpentOnlyOnCallsMade() throws Exception {
        restartWithConfig(LIMITS);
        toTheStartOfANewWindow();
        acceptMany(TestNmc.BERICHTTYPE, 9);
        TestLdv.get().failInserts("53100", "TRUE");
        assertThat(ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN)).isEqualTo(9);
        assertThat(posts()).as("no LDV record, no call").isEmpty();

        TestLdv.get().heal();
        notify.reset();
        clock.advance(Duration.ofSeconds(5));
        drainSends();
        assertThat(sentBy(SERVICE_A))
                .as("the nine postponed sends, on the tokens they gave back")
                .isEqualTo(9);
    }

    @Test
    void aFailedCallKeepsItsTokenAndTheWindowDoesNotServeMore() throws Exception {
        restartWithConfig(LIMITS);
        toTheStartOfANewWindow();
        acceptMany(TestNmc.BERICHTTYPE, 12);
        notify.answer(503, "Exception");
        drainSends();
        assertThat(posts()).as("nine calls, each failed").hasSize(9);

        notify.reset();
        clock.advance(Duration.ofSeconds(10));
        drainSends();
        assertThat(posts())
                .as("a failed call spent its token: nothing more in this window")
                .hasSize(9);

        clock.advance(Duration.ofMinutes(1));
        drainSends();
        assertThat(posts()).as("the next window: nine again").hasSize(18);
    }

    @Test
    void aSendPlannedForAServiceItsBerichttypeNoLongerUsesIsPlannedAgainUnderTheNewOne() throws Exception {
        UUID id = accept(TestNmc.BERICHTTYPE);
        moveTheBerichttypeToTheSecondService();
        assertThat(query("SELECT budget FROM taak WHERE notificatie = ?", id)).containsExactly("standaard");

        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        assertThat(posts()).isEmpty();
        assertThat(query("SELECT budget FROM taak WHERE notificatie = ?", id)).containsExactly("tweede");
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        assertThat(posts())
                .singleElement()
                .satisfies(post -> assertThat(signedBy(post)).isEqualTo(SERVICE_B));
        assertThat(status(id)).isEqualTo("verzonden:3");
    }

    @Test
    void aReceiptIsStoredOnlyWithTheCallbackTokenOfItsNotificationsService() {
        UUID b = accept(TestNmc.BERICHTTYPE_B);
        ManualRunner.of(nmc).runWorkersOnce();
        String body = receiptBody(b, 1, "delivered");

        assertThat(http.post("/api/nmc/v1/notifynl-callback", "not-a-configured-token-at-all", body)
                        .status())
                .isEqualTo(401);
        assertThat(http.post("/api/nmc/v1/notifynl-callback", TestNmc.CALLBACK_TOKEN, body)
                        .status())
                .as("standaard's token: 200, so NotifyNL does not retry, but not stored")
                .isEqualTo(200);
        assertThat(query("SELECT count(*) FROM ontvangst WHERE poging = ?", pogingId(b, 1)))
                .containsExactly("0");

        assertThat(http.post("/api/nmc/v1/notifynl-callback", TestNmc.CALLBACK_TOKEN_B, body)
                        .status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(b)).isEqualTo("bezorgd:4");
    }

    /**
     * An operator moves a berichttype to another service while its attempts run. Their callbacks come with the old
     * service's token, and their reconciliation must ask the old service: the attempt keeps the service that sent
     * it. Before, the callback was answered 200 and dropped (a bounce lost, the notification definitief-bezorgd
     * wrongly), and a reconciliation planned again asked the new service, whose 404 ends it bezorgstatus-onbekend.
     */
    @Test
    void anAttemptKeepsTheServiceThatSentItWhenItsBerichttypeMovesToAnother() {
        UUID id = accept(TestNmc.BERICHTTYPE);
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        assertThat(status(id)).isEqualTo("verzonden:3");
        moveTheBerichttypeToTheSecondService();

        // the reconciliation, lost and planned again by the control duty, still asks (and spends) standaard
        sql("DELETE FROM taak WHERE notificatie = '" + id + "'");
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(query("SELECT soort || ':' || budget FROM taak WHERE notificatie = ?", id))
                .containsExactly("reconcilieren:standaard");

        assertThat(http.post(
                                "/api/nmc/v1/notifynl-callback",
                                TestNmc.CALLBACK_TOKEN,
                                receiptBody(id, 1, "permanent-failure"))
                        .status())
                .isEqualTo(200);
        assertThat(query("SELECT count(*) FROM ontvangst WHERE poging = ?", pogingId(id, 1)))
                .as("the callback of the service that sent it is stored")
                .containsExactly("1");
        assertThat(http.post("/api/nmc/v1/notifynl-callback", TestNmc.CALLBACK_TOKEN_B, receiptBody(id, 1, "delivered"))
                        .status())
                .isEqualTo(200);
        assertThat(query("SELECT count(*) FROM ontvangst WHERE poging = ?", pogingId(id, 1)))
                .as("the new service's token does not speak for it")
                .containsExactly("1");
    }

    /**
     * A POST whose outcome is unknown, then the berichttype moves to another service: the re-claim looks the attempt up
     * where it may be, at the service that was POSTed to (the send task keeps its budget while the attempt may be at
     * NotifyNL). Asking the new one would find nothing and send it twice.
     */
    @Test
    void anUncertainSendIsLookedUpAtTheServiceItWasPostedTo() throws Exception {
        notify.answer(500, "Exception");
        UUID id = accept(TestNmc.BERICHTTYPE);
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        assertThat(status(id)).isEqualTo("in-verzending:2");
        moveTheBerichttypeToTheSecondService();
        notify.reset();
        notify.status(null, null, null);

        aMinuteOfSends();

        assertLookedUpOnlyWith(SERVICE_A);
    }

    /**
     * The same, when the send task was lost and the control duty planned it again under the berichttype's new
     * service: the send goes back to the service its attempt was POSTed with before it asks (V30).
     */
    @Test
    void anUncertainSendPlannedAgainUnderTheNewServiceIsLookedUpAtTheOldOne() throws Exception {
        notify.answer(500, "Exception");
        UUID id = accept(TestNmc.BERICHTTYPE);
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        moveTheBerichttypeToTheSecondService();
        sql("DELETE FROM taak WHERE notificatie = '" + id + "'");
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(query("SELECT budget FROM taak WHERE notificatie = ?", id)).containsExactly("tweede");
        notify.reset();
        notify.status(null, null, null);
        int postsBefore = posts().size();

        aMinuteOfSends();

        assertLookedUpOnlyWith(SERVICE_A);
        assertThat(posts().subList(postsBefore, posts().size()))
                .as("not there: the new start goes to the berichttype's new service, with its template")
                .singleElement()
                .satisfies(post -> assertThat(signedBy(post)).isEqualTo(SERVICE_B));
        assertThat(status(id)).isEqualTo("verzonden:3");
    }

    /**
     * A service removed from the configuration while tasks of its attempts remain (a send that may be at NotifyNL, a
     * reconciliation): their budget has no limit, so they would never be claimed and their notifications would stay
     * where they are. Refused at the start, as a berichttype's service is.
     */
    @Test
    void aServiceThatOpenTasksStillUseCannotBeRemovedFromTheConfiguration() {
        UUID id = accept(TestNmc.BERICHTTYPE);
        sql("UPDATE taak SET budget = 'weg' WHERE notificatie = '" + id + "'");
        nmc.close();
        assertThatThrownBy(() -> startAnother("{}").close())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("tasks still use NotifyNL service(s) [weg]");
        sql("UPDATE taak SET budget = 'standaard' WHERE notificatie = '" + id + "'");
        nmc = startAnother("{}");
    }

    @Test
    void aBerichttypeWhoseServiceHasNoConfigurationStopsTheStart() {
        nmc.close();
        var seeded = TestNmc.config(
                DB,
                IAM,
                notify.baseUrl(),
                notify.baseUrl(),
                false,
                "{}",
                base -> base.replace("notify-service: tweede", "notify-service: onbekend"));
        assertThatThrownBy(() -> Nmc.start(seeded, clock).close())
                .hasMessageContaining("berichttype " + TestNmc.BERICHTTYPE_B + " uses NotifyNL service onbekend")
                .hasMessageContaining("notifynl.services.onbekend.api-key");

        // Registered in the database (onboarding), not in the seed: refused at the start as well.
        sql("INSERT INTO berichttype (code, notify_template_id, notify_service, verwerkingsactiviteit) VALUES "
                + "('weg-bericht', gen_random_uuid(), 'weg', 'https://register.example.nl/x')");
        assertThatThrownBy(() -> startAnother("{}").close())
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("berichttype weg-bericht uses NotifyNL service weg, which has no configuration");
        sql("DELETE FROM berichttype WHERE code = 'weg-bericht'");

        assertThatThrownBy(() -> startAnother("notifynl:\n  api-key: \"" + TestNmc.NOTIFY_API_KEY + "\"\n")
                        .close())
                .hasMessageContaining("notifynl.api-key is no longer read");
        assertThatThrownBy(() ->
                        startAnother("engine:\n  notify-per-minute: 100\n").close())
                .hasMessageContaining("engine.notify-per-minute is no longer read");
        nmc = startAnother("{}");
    }

    /** A minute later, three rounds of the send worker. */
    private void aMinuteOfSends() {
        clock.advance(Duration.ofMinutes(1));
        for (int round = 0; round < 3; round++) {
            ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        }
    }

    /** Some lookup by reference was made, each signed with the key of {@code serviceId}. */
    private void assertLookedUpOnlyWith(String serviceId) throws Exception {
        List<LoggedRequest> lookups = notify.server().findAll(getRequestedFor(urlPathEqualTo("/v2/notifications")));
        assertThat(lookups).isNotEmpty();
        for (LoggedRequest lookup : lookups) {
            assertThat(signedBy(lookup)).as("asked where it was POSTed").isEqualTo(serviceId);
        }
    }

    /** An operator moves {@link TestNmc#BERICHTTYPE} to the service {@code tweede}, with that service's template. */
    private static void moveTheBerichttypeToTheSecondService() {
        sql("UPDATE berichttype SET notify_service = 'tweede', notify_template_id = '" + TestNmc.TEMPLATE_ID_B
                + "' WHERE code = '" + TestNmc.BERICHTTYPE + "'");
    }
}
