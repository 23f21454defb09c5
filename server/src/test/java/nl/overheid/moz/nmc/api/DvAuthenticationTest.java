package nl.overheid.moz.nmc.api;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.getRequestedFor;
import static com.github.tomakehurst.wiremock.client.WireMock.urlEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.tomakehurst.wiremock.WireMockServer;
import java.time.Duration;
import java.time.Instant;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.RunningNmc;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * DV tokens against an IAM gateway whose JWKS endpoint counts its calls: the fixed algorithm list, the clock skew,
 * key rotation and withdrawal through the cache, and the bound on fetches that tokens with made-up kids cannot
 * push the NMC past.
 */
class DvAuthenticationTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final TestIam IAM = new TestIam();
    /** The gateway's next key, published later. */
    private static final TestIam ROTATED = new TestIam();
    /** A key the gateway publishes for RS512: still not an algorithm the NMC takes. */
    private static final TestIam RS512 = new TestIam();

    private static final int MAX_FETCHES = 3;
    private static final String FEED = "/api/nmc/v1/notificaties/wijzigingen";

    private final MutableClock clock = MutableClock.startingNow();
    private WireMockServer gateway;
    private RunningNmc nmc;
    private Http http;

    @BeforeEach
    void start() {
        DB.reset();
        gateway = new WireMockServer(options().dynamicPort());
        gateway.start();
        publish(IAM.jwksJson());
        nmc = RunningNmc.start(DB, IAM, clock, """
                auth:
                  jwks-uri: "%s/jwks"
                  jwks-max-fetches-per-minute: %d
                  jwks-refresh-interval: PT10M
                """.formatted(gateway.baseUrl(), MAX_FETCHES));
        http = nmc.http();
    }

    @AfterEach
    void stop() {
        nmc.close();
        gateway.stop();
    }

    @Test
    void tokensWithRandomKidsCostTheGatewayAtMostTheBoundOfFetchesPerMinute() {
        assertThat(fetches()).as("the load at start").isEqualTo(1);
        for (int i = 0; i < 100; i++) {
            assertThat(http.get(FEED, IAM.unknownKeyToken(TestNmc.DV_A)).status())
                    .isEqualTo(401);
        }
        assertThat(fetches()).as("an unknown kid does fetch, within the bound").isEqualTo(MAX_FETCHES);
        assertThat(http.get(FEED, token(IAM)).status())
                .as("a known kid needs no fetch")
                .isEqualTo(200);

        clock.advance(Duration.ofSeconds(61));
        for (int i = 0; i < 100; i++) {
            assertThat(http.get(FEED, IAM.unknownKeyToken(TestNmc.DV_A)).status())
                    .isEqualTo(401);
        }
        assertThat(fetches()).as("a new minute, a new budget").isEqualTo(2 * MAX_FETCHES);
    }

    @Test
    void aNewKeyOfTheGatewayIsFetchedForItsFirstTokenAndAWithdrawnOneEndsWithTheCache() {
        publish(IAM.jwksJson(), ROTATED.jwksJson());
        assertThat(http.get(FEED, token(ROTATED)).status()).isEqualTo(200);
        assertThat(fetches()).isEqualTo(2);

        publish(ROTATED.jwksJson());
        assertThat(http.get(FEED, token(IAM)).status()).as("still cached").isEqualTo(200);
        clock.advance(Duration.ofMinutes(10));
        assertThat(http.get(FEED, token(IAM)).status())
                .as("withdrawn at the gateway")
                .isEqualTo(401);
        assertThat(http.get(FEED, token(ROTATED)).status()).isEqualTo(200);
        assertThat(fetches()).isEqualTo(3);
    }

    @Test
    void aKeyTheGatewayPublishesForAnotherAlgorithmDoesNotWidenTheList() {
        publish(IAM.jwksJson(), RS512.jwksJson("RS512"));
        assertThat(http.get(FEED, RS512.tokenWithAlgorithm(TestNmc.DV_A, "RS512", clock.instant()))
                        .status())
                .isEqualTo(401);
        assertThat(fetches()).as("refused before any key is looked up").isEqualTo(1);
    }

    @Test
    void onlyRs256AndEs256AreAcceptedAndARefusedAlgorithmCostsNoFetch() {
        assertThat(http.get(FEED, IAM.tokenWithAlgorithm(TestNmc.DV_A, "RS512", clock.instant()))
                        .status())
                .as("RS512, correctly signed by the gateway's key")
                .isEqualTo(401);
        assertThat(http.get(FEED, IAM.tokenWithAlgorithm(TestNmc.DV_A, "RS384", clock.instant()))
                        .status())
                .as("RS384")
                .isEqualTo(401);
        assertThat(http.get(FEED, IAM.hmacWithPublicKeyToken(TestNmc.DV_A, clock.instant()))
                        .status())
                .as("HS256 with the public key as secret")
                .isEqualTo(401);
        assertThat(http.get(FEED, IAM.unsignedToken(TestNmc.DV_A)).status())
                .as("none")
                .isEqualTo(401);
        assertThat(fetches()).isEqualTo(1);
        assertThat(http.get(FEED, IAM.tokenWithAlgorithm(TestNmc.DV_A, "RS256", clock.instant()))
                        .status())
                .isEqualTo(200);
    }

    @Test
    void onlyAnAccessTokenTypeIsAcceptedNotAnIdTokenNorATokenWithoutType() {
        Instant now = clock.instant();
        for (String accepted : new String[] {"at+jwt", "JWT", "application/at+jwt", "jwt"}) {
            assertThat(http.get(FEED, IAM.token(TestNmc.DV_A, now, Duration.ofMinutes(5), accepted))
                            .status())
                    .as(accepted)
                    .isEqualTo(200);
        }
        for (String refused : new String[] {"id+jwt", "logout+jwt", "secevent+jwt", "dpop+jwt", ""}) {
            assertThat(http.get(FEED, IAM.token(TestNmc.DV_A, now, Duration.ofMinutes(5), refused))
                            .status())
                    .as(refused)
                    .isEqualTo(401);
        }
        assertThat(http.get(FEED, IAM.token(TestNmc.DV_A, now, Duration.ofMinutes(5), null))
                        .status())
                .as("no typ")
                .isEqualTo(401);
    }

    /**
     * A token whose registered claims do not convert (a text as {@code exp}, a time beyond what an instant holds, an
     * unknown time zone, a non-URI website) is a 401 problem before any key is looked at, never a 500, on the DV and
     * the operator API alike. Helidon's JWT reads those claims when it builds the token, before its signature is
     * checked, so no key is needed to try it.
     */
    @Test
    void aTokenWhoseClaimsDoNotConvertIsA401ProblemNotA500() {
        java.util.Base64.Encoder base64 = java.util.Base64.getUrlEncoder().withoutPadding();
        String header = base64.encodeToString("{\"alg\":\"RS256\",\"typ\":\"at+jwt\",\"kid\":\"x\"}"
                .getBytes(java.nio.charset.StandardCharsets.UTF_8));
        String[] payloads = {
            "{\"exp\":\"x\"}",
            "{\"iat\":9223372036854775807}",
            "{\"nbf\":1e300}",
            "{\"exp\":[1]}",
            "{\"zoneinfo\":\"Nowhere/None\"}",
            "{\"website\":\"http://a b\"}",
            "{\"birthday\":\"2026-02-30\"}",
            "{\"email_verified\":\"ja\"}",
            "{\"aud\":{\"a\":1}}",
            "{\"sub\":5}",
            "[]",
            "5"
        };
        for (String payload : payloads) {
            String token = header + "."
                    + base64.encodeToString(payload.getBytes(java.nio.charset.StandardCharsets.UTF_8)) + ".AA";
            for (String path : new String[] {FEED, "/api/nmc-beheer/v1/beheeracties"}) {
                Http.Response answer = http.get(path, token);
                assertThat(answer.status()).as(payload + " on " + path).isEqualTo(401);
                assertThat(answer.contentType()).isEqualTo("application/problem+json");
            }
        }
    }

    @Test
    void aTokenThatLivesOrHasLivedLongerThanTheMaximumAgeIsRefusedThoughNotExpired() {
        Instant now = clock.instant();
        assertThat(http.get(FEED, IAM.token(TestNmc.DV_A, now, Duration.ofHours(1), "at+jwt"))
                        .status())
                .as("an hour, the default maximum")
                .isEqualTo(200);
        assertThat(http.get(FEED, IAM.token(TestNmc.DV_A, now, Duration.ofDays(365), "at+jwt"))
                        .status())
                .as("a year")
                .isEqualTo(401);
        assertThat(http.get(FEED, IAM.token(TestNmc.DV_A, now.minus(Duration.ofHours(2)), Duration.ofHours(3), "JWT"))
                        .status())
                .as("issued two hours ago, valid another hour")
                .isEqualTo(401);
    }

    @Test
    void aTokenExpiredWithinTheClockSkewIsAcceptedAndOneBeyondItIsNot() {
        // Tokens valid for an hour, issued an hour and 30 or 90 seconds ago.
        Instant hourAgo = clock.instant().minus(Duration.ofHours(1));
        assertThat(http.get(FEED, IAM.token(TestNmc.DV_A, hourAgo.minusSeconds(30)))
                        .status())
                .as("expired 30 s ago, skew 60 s")
                .isEqualTo(200);
        assertThat(http.get(FEED, IAM.token(TestNmc.DV_A, hourAgo.minusSeconds(90)))
                        .status())
                .as("expired 90 s ago")
                .isEqualTo(401);
        Instant later = clock.instant().plusSeconds(30);
        assertThat(http.get(FEED, IAM.token(TestNmc.DV_A, later)).status())
                .as("issued 25 s ahead of our clock")
                .isEqualTo(200);
        assertThat(http.get(FEED, IAM.token(TestNmc.DV_A, later.plusSeconds(60)))
                        .status())
                .as("issued 85 s ahead of our clock")
                .isEqualTo(401);
    }

    private String token(TestIam iam) {
        return iam.token(TestNmc.DV_A, clock.instant());
    }

    private int fetches() {
        return gateway.countRequestsMatching(
                        getRequestedFor(urlEqualTo("/jwks")).build())
                .getCount();
    }

    /** The gateway publishes the keys of these JWKS documents from now on. */
    private void publish(String... documents) {
        ObjectMapper mapper = new ObjectMapper();
        ObjectNode jwks = mapper.createObjectNode();
        ArrayNode keys = jwks.putArray("keys");
        for (String document : documents) {
            try {
                mapper.readTree(document).path("keys").forEach(keys::add);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
        gateway.stubFor(get(urlEqualTo("/jwks"))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(jwks.toString())));
    }
}
