package nl.overheid.moz.nmc.sending;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.core.WireMockConfiguration;
import com.github.tomakehurst.wiremock.verification.LoggedRequest;
import io.helidon.config.Config;
import io.helidon.config.ConfigSources;
import io.helidon.security.jwt.SignedJwt;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The NotifyNL client against a WireMock NotifyNL. Its API key JWT is signed at most once per
 * {@link NotifyNlClient#TOKEN_REUSE}: NotifyNL accepts an {@code iat} within 30 seconds of its clock, so a token a few
 * seconds old still passes, and signing one per call was about 2 % of the NMC's CPU under load. A list answer outside
 * NotifyNL's contract is never read as "nothing under this reference", which would send the e-mail again.
 */
class NotifyNlClientTest {

    private final WireMockServer notify =
            new WireMockServer(WireMockConfiguration.options().dynamicPort());
    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-02T10:00:00.600Z"));
    private NotifyNlClient client;

    @BeforeEach
    void start() {
        notify.start();
        notify.stubFor(get(urlPathMatching("/v2/template/.*"))
                .willReturn(aResponse()
                        .withStatus(404)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"status_code\":404,\"errors\":[{\"error\":\"NoResultFound\","
                                + "\"message\":\"No result found\"}]}")));
        NotifyNlSettings settings = NotifyNlSettings.from(Config.just(ConfigSources.create(Map.of(
                        "notifynl.base-url",
                        notify.baseUrl(),
                        "notifynl.services.standaard.api-key",
                        TestNmc.NOTIFY_API_KEY,
                        "notifynl.callback-token",
                        TestNmc.CALLBACK_TOKEN_B)))
                .get("notifynl"));
        client = new NotifyNlClient(settings, settings.services().get("standaard"), clock);
    }

    @AfterEach
    void stop() {
        notify.stop();
    }

    @Test
    void callsWithinFiveSecondsShareOneTokenAndALaterCallGetsAFreshOne() {
        client.template(UUID.randomUUID());
        clock.advance(Duration.ofMillis(4_300)); // 10:00:04.900: still within five seconds of its iat (10:00:00)
        client.template(UUID.randomUUID());
        clock.advance(Duration.ofMillis(200)); // 10:00:05.100
        client.template(UUID.randomUUID());

        List<String> tokens = notify.findAll(getRequestedFor(urlPathMatching("/v2/template/.*"))).stream()
                .map(LoggedRequest.class::cast)
                .map(request -> request.getHeader("Authorization").substring("Bearer ".length()))
                .toList();
        assertThat(tokens).hasSize(3);
        assertThat(tokens.get(1)).isEqualTo(tokens.get(0));
        assertThat(tokens.get(2)).isNotEqualTo(tokens.get(0));
        assertThat(issuedAt(tokens.get(0))).isEqualTo(Instant.parse("2026-12-02T10:00:00Z"));
        assertThat(issuedAt(tokens.get(2))).isEqualTo(Instant.parse("2026-12-02T10:00:05Z"));
    }

    @Test
    void aClockThatWentBackGetsAFreshToken() {
        client.template(UUID.randomUUID());
        clock.advance(Duration.ofSeconds(-2));
        client.template(UUID.randomUUID());
        List<String> tokens = notify.findAll(getRequestedFor(urlPathMatching("/v2/template/.*"))).stream()
                .map(request -> request.getHeader("Authorization"))
                .toList();
        assertThat(tokens.get(1)).isNotEqualTo(tokens.get(0));
    }

    private static Instant issuedAt(String token) {
        return SignedJwt.parseToken(token).getJwt().issueTime().orElseThrow();
    }

    /**
     * NotifyNL's list always has its {@code notifications} array ({@code get_notifications.py}); a 200 without it
     * (something in front of NotifyNL, an empty body) says nothing about the reference, and taking it as "none"
     * would POST the e-mail a second time.
     */
    @Test
    void aListAnswerWithoutItsNotificationsIsUnavailableNotNone() {
        for (String answer : List.of("{}", "", "{\"notifications\":null}", "[]")) {
            notify.stubFor(get(urlPathMatching("/v2/notifications"))
                    .willReturn(aResponse()
                            .withStatus(200)
                            .withHeader("Content-Type", "application/json")
                            .withBody(answer)));
            assertThat(client.findAllByReference(UUID.randomUUID(), nl.overheid.moz.nmc.trace.Span.root()))
                    .as(answer)
                    .isInstanceOf(NotifyNl.ReferenceLookup.Unavailable.class);
        }
        notify.stubFor(get(urlPathMatching("/v2/notifications"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"links\":{\"current\":\"x\"},\"notifications\":[]}")));
        assertThat(client.findAllByReference(UUID.randomUUID(), nl.overheid.moz.nmc.trace.Span.root()))
                .isEqualTo(new NotifyNl.ReferenceLookup.Found(List.of()));
    }
}
