package nl.overheid.moz.nmc.flow;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.Nmc;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.testing.DvWebhookStub;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.TestLdv;
import nl.overheid.moz.nmc.testing.TestNmc;
import nl.overheid.moz.nmc.testing.TestWebhookKeys;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The webhook end to end against a DV on WireMock that verifies every token as a DV would (Nimbus, the NMC's
 * JWKS): batches in feed order with the same content as the feed, the cursor acknowledged through the PUT,
 * failures, pauses with an increasing wait, resuming on request, redirects, slow and oversized answers,
 * key rotation with its overlap, LDV records first, and one DV never seeing another's events.
 */
class WebhookTest extends LifecycleTestBase {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final String ISSUER = "https://nmc.test.local";
    private DvWebhookStub dv;

    @BeforeEach
    void registerTheWebhook() {
        dv = new DvWebhookStub();
        registerWebhook();
    }

    /** DV A's webhook in the register (after every start: the dev seed writes the register anew). */
    private void registerWebhook() {
        dv.trust(http.baseUrl() + "/.well-known/jwks.json", ISSUER);
        sql("UPDATE dienstverlener SET webhook_url = '" + dv.url() + "', webhook_max_mislukkingen = 3 WHERE oin = '"
                + TestNmc.DV_A + "'");
        ManualRunner.of(nmc).runDutiesOnce();
    }

    private void restart(String config) {
        restartWithConfig(config);
        registerWebhook();
    }

    @AfterEach
    void stopTheDv() {
        dv.close();
    }

    @Test
    void batchesArriveSignedInFeedOrderWithTheFeedsContentAndTheirCursorAcknowledgesThroughThePut() throws Exception {
        restart("webhook:\n  batch-size: 4\n");
        for (int i = 0; i < 3; i++) {
            accept("WH-" + i, Map.of());
        }
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN); // 3 × (aangenomen, in-verzending, verzonden) = 9 events

        deliverAll();

        List<ServeEvent> calls = calls();
        assertThat(calls).hasSize(3); // 4 + 4 + 1
        assertThat(dv.verdicts())
                .allSatisfy(verdict ->
                        assertThat(verdict.valid()).as(verdict.reason()).isTrue());
        List<JsonNode> pushed = new ArrayList<>();
        for (ServeEvent call : calls) {
            assertThat(call.getRequest().getHeader("Content-Type")).isEqualTo("application/cloudevents-batch+json");
            assertThat(call.getRequest().getHeader("traceparent")).matches("00-[0-9a-f]{32}-[0-9a-f]{16}-01");
            MAPPER.readTree(call.getRequest().getBodyAsString()).forEach(pushed::add);
        }
        JsonNode feed = http.get("/api/nmc/v1/notificaties/wijzigingen?limit=100", tokenA())
                .json();
        List<JsonNode> read = new ArrayList<>();
        feed.path("events").forEach(read::add);
        assertThat(pushed)
                .as("the same events, in the same order, with the same content")
                .isEqualTo(read);

        String lastCursor = calls.getLast().getRequest().getHeader("NMC-Cursor");
        assertThat(http.put(
                                "/api/nmc/v1/notificaties/wijzigingen/bevestiging",
                                tokenA(),
                                "{\"cursor\":\"" + lastCursor + "\"}")
                        .status())
                .isEqualTo(200);
        assertThat(http.get("/api/nmc/v1/notificaties/wijzigingen?cursor=" + lastCursor, tokenA())
                        .json()
                        .path("events"))
                .as("the webhook's cursor is a feed cursor")
                .isEmpty();
        JsonNode state = http.get("/api/nmc/v1/webhook", tokenA()).json();
        assertThat(state.path("status").asText()).isEqualTo("actief");
        assertThat(state.path("mislukkingen").asInt()).isZero();
        assertThat(query("SELECT count(*) FROM bevestiging WHERE cursor = '" + lastCursor + "'", null))
                .as("a 2xx never acknowledges; only the PUT did")
                .containsExactly("1");
    }

    /**
     * Issue 18 §8: removing a DV's webhook removes its delivery position (which would otherwise hold the event log
     * past the retention) and its terugkoppelen task, at the webhook duty's next round.
     */
    @Test
    void removingADvsWebhookRemovesItsPositionAndItsTask() {
        accept("WH-WEG", Map.of());
        deliverAll();
        assertThat(query(
                        "SELECT count(*) FROM webhookpositie w JOIN dienstverlener d ON d.id = w.dv_id WHERE d.oin = '"
                                + TestNmc.DV_A + "' AND w.aangemaakt_op IS NOT NULL",
                        null))
                .containsExactly("1");

        sql("UPDATE dienstverlener SET webhook_url = NULL WHERE oin = '" + TestNmc.DV_A + "'");
        ManualRunner.of(nmc).runDutiesOnce();

        assertThat(query(
                        "SELECT count(*) FROM webhookpositie w JOIN dienstverlener d ON d.id = w.dv_id WHERE d.oin = '"
                                + TestNmc.DV_A + "'",
                        null))
                .containsExactly("0");
        assertThat(query("SELECT count(*) FROM taak WHERE soort = 'terugkoppelen'", null))
                .containsExactly("0");
    }

    @Test
    void theTokenBindsItsBodyAndCursorSoALeakedOneCarriesNoOtherEvents() throws Exception {
        accept("WH-1", Map.of());
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        deliverAll();
        ServeEvent call = calls().getFirst();
        assertThat(dv.verdicts().getFirst().valid()).isTrue();
        JsonNode claims = MAPPER.readTree(java.util.Base64.getUrlDecoder()
                .decode(call.getRequest().getHeader("Authorization").split("\\.")[1]));
        assertThat(claims.path("body_sha256").asText())
                .isEqualTo(java.util.Base64.getUrlEncoder()
                        .withoutPadding()
                        .encodeToString(java.security.MessageDigest.getInstance("SHA-256")
                                .digest(call.getRequest().getBody())));
        assertThat(claims.path("nmc_cursor").asText())
                .isEqualTo(call.getRequest().getHeader("NMC-Cursor"));

        // The same token with other events, as someone who found it in a log would send it.
        java.net.http.HttpResponse<Void> replay = java.net.http.HttpClient.newHttpClient()
                .send(
                        java.net.http.HttpRequest.newBuilder(URI.create(dv.url()))
                                .header("Authorization", call.getRequest().getHeader("Authorization"))
                                .header("NMC-Cursor", call.getRequest().getHeader("NMC-Cursor"))
                                .header("Content-Type", "application/cloudevents-batch+json")
                                .POST(java.net.http.HttpRequest.BodyPublishers.ofString("[]"))
                                .build(),
                        java.net.http.HttpResponse.BodyHandlers.discarding());
        assertThat(replay.statusCode()).isEqualTo(401);
        assertThat(dv.verdicts().getLast().reason()).isEqualTo("body or cursor not the token's");
    }

    @Test
    void theAgreedFailuresPauseTheWebhookWhichResumesAfterAnIncreasingWaitOrAtOnceOnRequest() {
        failTheAgreedThreeDeliveries();
        assertThat(calls()).hasSize(3);
        JsonNode paused = http.get("/api/nmc/v1/webhook", tokenA()).json();
        assertThat(paused.path("status").asText()).isEqualTo("gepauzeerd");
        Instant firstPause = Instant.parse(paused.path("gepauzeerdTot").asText());

        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);
        assertThat(calls()).as("nothing while paused").hasSize(3);
        clock.advance(Duration.between(clock.instant(), firstPause).plusSeconds(1));
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);
        assertThat(calls()).as("one try after the pause").hasSize(4);
        Instant secondPause = Instant.parse(http.get("/api/nmc/v1/webhook", tokenA())
                .json()
                .path("gepauzeerdTot")
                .asText());
        assertThat(Duration.between(clock.instant(), secondPause))
                .as("the second pause is longer")
                .isGreaterThan(Duration.ofMinutes(1))
                .isLessThanOrEqualTo(Duration.ofMinutes(2));
        assertThat(calls())
                .extracting(call -> call.getRequest().getBodyAsString())
                .as("never per event again")
                .containsOnly(calls().getFirst().getRequest().getBodyAsString());

        dv.server().resetMappings();
        dv.reset();
        Http.Response resumed = http.post("/api/nmc/v1/webhook/hervatting", tokenA(), "");
        assertThat(resumed.status()).isEqualTo(200);
        assertThat(resumed.json().path("status").asText()).isEqualTo("actief");
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);

        assertThat(calls()).hasSize(1);
        JsonNode after = http.get("/api/nmc/v1/webhook", tokenA()).json();
        assertThat(after.path("mislukkingen").asInt()).isZero();
        assertThat(after.path("cursor").asText()).isNotBlank();
    }

    /**
     * Found by a read of the webhook: a pause wrote 0 failures, so a paused webhook told its DV "mislukkingen: 0"
     * (the contract: consecutive failures since the last success), and a resume kept the pause count, so the first
     * failure after the DV said it was back paused the webhook again at once, longer, while the DV saw "actief"
     * (and the paused gauge stayed 1). A resume is a fresh start: the agreed number of failures again.
     */
    @Test
    void aPausedWebhookCountsItsFailuresAndAResumeStartsAfresh() {
        failTheAgreedThreeDeliveries();
        JsonNode paused = http.get("/api/nmc/v1/webhook", tokenA()).json();
        assertThat(paused.path("status").asText()).isEqualTo("gepauzeerd");
        assertThat(paused.path("mislukkingen").asInt())
                .as("three failed since the last success")
                .isEqualTo(3);
        clock.advance(Duration.between(
                        clock.instant(),
                        Instant.parse(paused.path("gepauzeerdTot").asText()))
                .plusSeconds(1));
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);
        assertThat(http.get("/api/nmc/v1/webhook", tokenA())
                        .json()
                        .path("mislukkingen")
                        .asInt())
                .isEqualTo(4);

        Http.Response resumed = http.post("/api/nmc/v1/webhook/hervatting", tokenA(), "");
        assertThat(resumed.status()).isEqualTo(200);
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(scrape().value("nmc_webhook_paused", Map.of("dv", TestNmc.DV_A)))
                .as("resumed: not paused")
                .isZero();
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN); // still 503: one failure of the agreed three
        JsonNode after = http.get("/api/nmc/v1/webhook", tokenA()).json();
        assertThat(after.path("status").asText()).as(after.toString()).isEqualTo("actief");
        assertThat(after.path("mislukkingen").asInt()).isEqualTo(1);
    }

    @Test
    void aRedirectIsNotFollowedAndCountsAsAFailure() {
        dv.server()
                .stubFor(post(urlPathEqualTo(DvWebhookStub.PATH))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(307)
                                .withHeader("Location", dv.server().baseUrl() + "/elders")));
        accept("WH-1", Map.of());
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);

        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);

        assertThat(dv.server().findAll(postRequestedFor(urlPathEqualTo("/elders"))))
                .isEmpty();
        assertThat(position()).isEqualTo("1:redirect-307:no position");
    }

    @Test
    void aSlowAnswerAndAnOversizedAnswerAreFailures() {
        dv.server()
                .stubFor(post(urlPathEqualTo(DvWebhookStub.PATH))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(200).withFixedDelay(4_000)));
        accept("WH-1", Map.of());
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);
        assertThat(position()).isEqualTo("1:timeout:no position");

        dv.server()
                .stubFor(post(urlPathEqualTo(DvWebhookStub.PATH))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(200).withBody(new byte[200 * 1024])));
        clock.advance(Duration.ofSeconds(30));
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);
        assertThat(position()).isEqualTo("2:response-too-large:no position");
    }

    @Test
    void aNewKeyIsPublishedBeforeItSignsAndTheOldOneStaysUntilItsTokensHaveExpired() {
        TestWebhookKeys next = TestWebhookKeys.generate("test-webhook-2");
        Instant publish = clock.instant();
        Instant sign = publish.plus(Duration.ofMinutes(10));
        restart("""
                webhook:
                  jwks-max-age: PT5M
                  signing-keys:
                    - %s
                    - %s
                """.formatted(
                        TestWebhookKeys.CURRENT.yaml(null, null), next.yaml(publish.toString(), sign.toString())));
        assertThat(kids()).containsExactly(TestWebhookKeys.CURRENT.kid, next.kid);
        accept("WH-1", Map.of());
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN); // the DV caches the JWKS now, holding both keys
        List<ServeEvent> before = calls();

        clock.advance(Duration.ofMinutes(11));
        accept("WH-2", Map.of());
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);

        assertThat(dv.verdicts())
                .extracting(DvWebhookStub.Verdict::kid)
                .containsExactly(TestWebhookKeys.CURRENT.kid, next.kid);
        assertThat(dv.verdicts())
                .allSatisfy(verdict ->
                        assertThat(verdict.valid()).as(verdict.reason()).isTrue());
        assertThat(calls()).hasSize(before.size() + 1);
        assertThat(kids()).as("the old key's tokens may still live").contains(TestWebhookKeys.CURRENT.kid);
        clock.advance(Duration.ofMinutes(6));
        assertThat(kids()).containsExactly(next.kid);
        assertThat(http.get("/api/nmc/v1/sleutels", null).json())
                .isEqualTo(http.get("/.well-known/jwks.json", null).json());
    }

    @Test
    void aKeyThatWouldSignBeforeDvsCanHaveCachedItIsRefusedAtStart() {
        TestWebhookKeys next = TestWebhookKeys.generate("test-webhook-2");
        Instant publish = clock.instant();
        assertThatThrownBy(() -> startAnother("""
                webhook:
                  jwks-max-age: PT5M
                  signing-keys:
                    - %s
                    - %s
                """.formatted(
                                TestWebhookKeys.CURRENT.yaml(null, null),
                                next.yaml(
                                        publish.toString(),
                                        publish.plus(Duration.ofMinutes(4)).toString()))))
                .hasMessageContaining("published at least jwks-max-age");
    }

    @Test
    void outsideDevAWebhookMustBeHttpsOnAPublicAddress() {
        for (String url : List.of(
                "http://dv.example.nl/webhook",
                "https://127.0.0.1/webhook",
                "https://10.0.0.8/webhook",
                "https://[::1]/webhook",
                "https://localhost/webhook",
                "https://169.254.169.254/latest")) {
            assertThatThrownBy(() -> startAnother("""
                    webhook:
                      allow-private-targets: false
                    register:
                      seed:
                        dienstverleners:
                          - oin: "00000001444444444000"
                            webhook-url: "%s"
                    """.formatted(url))).as(url).hasMessageContaining("webhook-url");
        }
    }

    @Test
    void everyNotificationInABatchHasItsLdvRecordBeforeTheCallAndWithoutOneNothingIsCalled() {
        accept("WH-1", Map.of());
        accept("WH-2", Map.of());
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        notify.server().resetRequests();
        TestLdv.get().failInserts("53100", "TRUE");

        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);
        assertThat(calls()).isEmpty();
        assertThat(position()).as("an LDV failure is not the DV's").isEqualTo("0:none:no position");

        TestLdv.get().heal();
        notify.reset();
        notify.server().resetRequests();
        clock.advance(Duration.ofSeconds(30));
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);

        List<ServeEvent> records = new ArrayList<>(notify.server().getAllServeEvents());
        assertThat(records)
                .hasSize(2)
                .allSatisfy(record -> assertThat(record.getRequest().getBodyAsString())
                        .contains("nmc.dv.status-terugkoppelen")
                        .doesNotContain("WH-")
                        .doesNotContain(EMAIL)
                        // the DV named by its webhook's origin: a path may hold a secret of the DV's
                        .contains("\"dpl.core.foreign_operation.processor\":\""
                                + dv.server().baseUrl() + "\"")
                        .doesNotContain(URI.create(dv.url()).getPath()));
        Instant lastRecord = records.stream()
                .map(r -> r.getRequest().getLoggedDate().toInstant())
                .max(Instant::compareTo)
                .orElseThrow();
        assertThat(calls())
                .singleElement()
                .satisfies(call -> assertThat(call.getRequest().getLoggedDate().toInstant())
                        .isAfterOrEqualTo(lastRecord));
    }

    @Test
    void aDvSeesOnlyItsOwnEventsAndADvWithoutWebhookHasNone() {
        accept("WH-A", Map.of());
        Http.Response b = http.post(
                "/api/nmc/v1/decentraal/notificaties",
                tokenB(),
                Http.json(Map.of("dvRef", "WH-B", "berichttype", TestNmc.BERICHTTYPE, "emailadres", EMAIL)));
        assertThat(b.status()).isEqualTo(202);
        UUID other = UUID.fromString(b.json().path("id").asText());
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);

        deliverAll();

        assertThat(calls())
                .isNotEmpty()
                .allSatisfy(
                        call -> assertThat(call.getRequest().getBodyAsString()).doesNotContain(other.toString()));
        String cursorOfA = calls().getLast().getRequest().getHeader("NMC-Cursor");
        assertThat(http.get("/api/nmc/v1/notificaties/wijzigingen?cursor=" + cursorOfA, tokenB())
                        .status())
                .as("A's cursor points at A's event: for B it does not exist")
                .isEqualTo(410);
        assertThat(http.put(
                                "/api/nmc/v1/notificaties/wijzigingen/bevestiging",
                                tokenB(),
                                "{\"cursor\":\"" + cursorOfA + "\"}")
                        .status())
                .isEqualTo(410);
        assertThat(query("SELECT count(*) FROM bevestiging", null)).containsExactly("0");
        Http.Response none = http.get("/api/nmc/v1/webhook", tokenB());
        assertThat(none.status()).isEqualTo(404);
        assertThat(none.json().path("type").asText()).endsWith("/geen-webhook");
        assertThat(http.post("/api/nmc/v1/webhook/hervatting", tokenB(), "").status())
                .isEqualTo(404);
    }

    @Test
    void theFeedsRateLimitHoldsOverTwoInstancesTogether() {
        restart("feed:\n  rate-limit-per-second: 5\n");
        try (Nmc second = startAnother("feed:\n  rate-limit-per-second: 5\n")) {
            Http other = Http.of(second);
            List<Http.Response> answers = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                answers.add(http.get("/api/nmc/v1/notificaties/wijzigingen", tokenA()));
                answers.add(other.get("/api/nmc/v1/notificaties/wijzigingen", tokenA()));
            }
            assertThat(answers).filteredOn(a -> a.status() == 200).hasSize(5);
            assertThat(answers).filteredOn(a -> a.status() == 429).hasSize(7).allSatisfy(a -> {
                assertThat(a.header("Retry-After")).contains("1");
                assertThat(a.contentType()).startsWith("application/problem+json");
            });
            assertThat(http.get("/api/nmc/v1/notificaties/wijzigingen", tokenB())
                            .status())
                    .as("another DV has its own limit")
                    .isEqualTo(200);
            assertThat(http.put("/api/nmc/v1/notificaties/wijzigingen/bevestiging", tokenA(), "{\"cursor\":\"x\"}")
                            .status())
                    .as("the acknowledgement counts too")
                    .isEqualTo(429);
            clock.advance(Duration.ofSeconds(1));
            assertThat(other.get("/api/nmc/v1/notificaties/wijzigingen", tokenA())
                            .status())
                    .isEqualTo(200);
        }
    }

    @Test
    void unacknowledgedTerminalStatusesAreReportedOncePerPeriodAndCountedPerDv() {
        com.github.tomakehurst.wiremock.WireMockServer channel = dv.server();
        channel.stubFor(post(urlPathEqualTo("/beheer")).willReturn(aResponse().withStatus(204)));
        restart("feed:\n  unacknowledged-check-interval: PT0S\n  unacknowledged-report-interval: P1D\n");
        sql("UPDATE dienstverlener SET beheerkanaal = '" + channel.baseUrl() + "/beheer', "
                + "bevestigingstermijn = interval '7 days' WHERE oin = '" + TestNmc.DV_A + "'");
        UUID id = accept("WH-1", Map.of());
        assertThat(http.delete("/api/nmc/v1/notificaties/" + id, tokenA()).status())
                .isEqualTo(200);

        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(channel.findAll(postRequestedFor(urlPathEqualTo("/beheer"))))
                .as("not older than 7 days yet")
                .isEmpty();
        clock.advance(Duration.ofDays(8));
        ManualRunner.of(nmc).runDutiesOnce();
        ManualRunner.of(nmc).runDutiesOnce();

        assertThat(channel.findAll(postRequestedFor(urlPathEqualTo("/beheer"))))
                .singleElement()
                .satisfies(report -> {
                    JsonNode body = MAPPER.readTree(report.getBodyAsString());
                    assertThat(body.path("aantal").asInt()).isEqualTo(1);
                    assertThat(body.path("dienstverlener").asText()).isEqualTo(TestNmc.DV_A);
                    assertThat(report.getBodyAsString())
                            .doesNotContain(id.toString())
                            .doesNotContain("WH-1");
                });
        assertThat(http.metric("nmc_feed_unacknowledged_terminal", "dv=\"" + TestNmc.DV_A + "\"")
                        .orElseThrow())
                .isEqualTo(1);

        String cursor = http.get("/api/nmc/v1/notificaties/wijzigingen", tokenA())
                .json()
                .path("cursor")
                .asText();
        http.put("/api/nmc/v1/notificaties/wijzigingen/bevestiging", tokenA(), "{\"cursor\":\"" + cursor + "\"}");
        clock.advance(Duration.ofDays(2));
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(http.metric("nmc_feed_unacknowledged_terminal", "dv=\"" + TestNmc.DV_A + "\"")
                        .orElseThrow())
                .isZero();
        assertThat(channel.findAll(postRequestedFor(urlPathEqualTo("/beheer")))).hasSize(1);
    }

    @Test
    void aManagementChannelThatDripsItsAnswerHoldsTheReportNoLongerThanItsTimeout() {
        com.github.tomakehurst.wiremock.WireMockServer channel = dv.server();
        // Headers at once, then the body a byte at a time over a minute: only a bound on the whole exchange ends it.
        channel.stubFor(post(urlPathEqualTo("/beheer"))
                .willReturn(aResponse().withStatus(200).withBody(new byte[60]).withChunkedDribbleDelay(60, 60_000)));
        restart("feed:\n  unacknowledged-check-interval: PT0S\n  unacknowledged-report-interval: P1D\n"
                + "  management-channel-timeout: PT1S\n");
        sql("UPDATE dienstverlener SET beheerkanaal = '" + channel.baseUrl() + "/beheer', "
                + "bevestigingstermijn = interval '1 day' WHERE oin = '" + TestNmc.DV_A + "'");
        UUID id = accept("WH-1", Map.of());
        assertThat(http.delete("/api/nmc/v1/notificaties/" + id, tokenA()).status())
                .isEqualTo(200);
        clock.advance(Duration.ofDays(2));

        long started = System.nanoTime();
        ManualRunner.of(nmc).runDutiesOnce();
        Duration took = Duration.ofNanos(System.nanoTime() - started);

        assertThat(channel.findAll(postRequestedFor(urlPathEqualTo("/beheer")))).hasSize(1);
        assertThat(took).as("the dripping answer is cut at the timeout").isLessThan(Duration.ofSeconds(20));
        assertThat(http.metric("nmc_feed_unacknowledged_terminal", "dv=\"" + TestNmc.DV_A + "\"")
                        .orElseThrow())
                .isEqualTo(1);
    }

    @Test
    void outsideDevAManagementChannelInTheOwnNetworkIsNeverCalled() throws Exception {
        // A listener on loopback that counts connections: a refused call never opens one.
        try (java.net.ServerSocket listener =
                new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            java.util.concurrent.atomic.AtomicInteger connections = new java.util.concurrent.atomic.AtomicInteger();
            Thread.ofVirtual().start(() -> {
                while (!listener.isClosed()) {
                    try (java.net.Socket ignored = listener.accept()) {
                        connections.incrementAndGet();
                    } catch (java.io.IOException closed) {
                        return;
                    }
                }
            });
            restart("feed:\n  unacknowledged-check-interval: PT0S\n  unacknowledged-report-interval: P1D\n"
                    + "webhook:\n  allow-private-targets: false\n  allowed-ports: [443, " + listener.getLocalPort()
                    + "]\n");
            // Written straight into the register, as if it had passed an older check: every call checks again.
            sql("UPDATE dienstverlener SET beheerkanaal = 'https://127.0.0.1:" + listener.getLocalPort()
                    + "/beheer', bevestigingstermijn = interval '1 day' WHERE oin = '" + TestNmc.DV_A + "'");
            UUID id = accept("WH-1", Map.of());
            assertThat(http.delete("/api/nmc/v1/notificaties/" + id, tokenA()).status())
                    .isEqualTo(200);
            clock.advance(Duration.ofDays(2));
            ManualRunner.of(nmc).runDutiesOnce();

            assertThat(connections).as("no connection into the own network").hasValue(0);
            assertThat(http.metric("nmc_feed_unacknowledged_terminal", "dv=\"" + TestNmc.DV_A + "\"")
                            .orElseThrow())
                    .as("the count is still kept")
                    .isEqualTo(1);
        }
    }

    // ---------------------------------------------------------------------------------------------------

    /** Runs the webhook until it has delivered everything there is. */
    /** The DV answers 503: a notification's status change fails its webhook the agreed three times (a pause). */
    private void failTheAgreedThreeDeliveries() {
        dv.server()
                .stubFor(post(urlPathEqualTo(DvWebhookStub.PATH))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(503)));
        accept("WH-1", Map.of());
        ManualRunner.of(nmc).runWorkerOnce(TaskKind.VERZENDEN);
        for (int failure = 1; failure <= 3; failure++) {
            ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);
            clock.advance(Duration.ofSeconds(30)); // past each retry wait (10 s, 20 s)
        }
    }

    private nl.overheid.moz.nmc.testing.PrometheusText scrape() {
        return nl.overheid.moz.nmc.testing.PrometheusText.parse(
                http.request("GET", "/observe/metrics", null, null, null).body());
    }

    private void deliverAll() {
        for (int round = 0; round < 20; round++) {
            int before = calls().size();
            clock.advance(Duration.ofSeconds(3)); // past the idle interval
            ManualRunner.of(nmc).runWorkerOnce(TaskKind.TERUGKOPPELEN);
            if (calls().size() == before) {
                return;
            }
        }
    }

    /** The DV's received calls, oldest first. */
    private List<ServeEvent> calls() {
        List<ServeEvent> calls = new ArrayList<>(dv.server().getAllServeEvents());
        calls.removeIf(call -> !call.getRequest().getUrl().startsWith(DvWebhookStub.PATH));
        Collections.reverse(calls);
        return calls;
    }

    /** {@code mislukkingen:laatste_fout:position} of DV A's webhook. */
    private String position() {
        return query(
                        "SELECT w.mislukkingen || ':' || coalesce(w.laatste_fout, 'none') || ':' "
                                + "|| CASE WHEN w.transactie_id IS NULL THEN 'no position' ELSE 'position' END "
                                + "FROM webhookpositie w JOIN dienstverlener d ON d.id = w.dv_id WHERE d.oin = '"
                                + TestNmc.DV_A + "'",
                        null)
                .getFirst();
    }

    private List<String> kids() {
        List<String> kids = new ArrayList<>();
        http.get("/.well-known/jwks.json", null)
                .json()
                .path("keys")
                .forEach(key -> kids.add(key.path("kid").asText()));
        return kids;
    }
}
