package nl.overheid.moz.nmc.testing;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.github.tomakehurst.wiremock.WireMockServer;
import com.github.tomakehurst.wiremock.extension.ResponseDefinitionTransformerV2;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import com.nimbusds.jose.JWSVerifier;
import com.nimbusds.jose.crypto.ECDSAVerifier;
import com.nimbusds.jose.crypto.RSASSAVerifier;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWK;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.RSAKey;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A DV's webhook on WireMock that does what a careful DV does with an off-the-shelf JWT library (Nimbus):
 * it verifies every call's bearer token against the NMC's JWKS — fetched once and cached, re-fetched only
 * for an unknown {@code kid} — with {@code iss}, {@code aud} (its own URL), {@code exp} at most five minutes
 * after {@code iat}, the body's SHA-256 and the cursor bound into the token, and a {@code jti} never seen before. A valid call is answered 200, an invalid one 401.
 * Tests put other answers (failures, redirects, slow or large answers) on top at priority 1.
 */
public final class DvWebhookStub implements AutoCloseable {

    public static final String PATH = "/webhook";

    /** What the DV concluded about one call. */
    public record Verdict(boolean valid, String kid, String reason) {}

    private final WireMockServer server;
    private final Verifier verifier = new Verifier();

    public DvWebhookStub() {
        server = new WireMockServer(options().dynamicPort().extensions(verifier));
        server.start();
        reset();
    }

    /** Where the NMC publishes its keys, and the {@code iss} it signs with. */
    public void trust(String jwksUrl, String issuer) {
        verifier.jwksUrl = jwksUrl;
        verifier.issuer = issuer;
        verifier.cached = null;
    }

    public String url() {
        return server.baseUrl() + PATH;
    }

    public WireMockServer server() {
        return server;
    }

    public List<Verdict> verdicts() {
        return List.copyOf(verifier.verdicts);
    }

    /** The verifying 200 again; test stubs and the journal are cleared. */
    public void reset() {
        server.resetAll();
        verifier.verdicts.clear();
        server.stubFor(post(urlPathEqualTo(PATH))
                .atPriority(10)
                .willReturn(aResponse().withStatus(200).withTransformers(Verifier.NAME)));
    }

    @Override
    public void close() {
        server.stop();
    }

    private final class Verifier implements ResponseDefinitionTransformerV2 {
        static final String NAME = "dv-verifies-jwt";

        volatile String jwksUrl;
        volatile String issuer;
        volatile JWKSet cached;
        final List<Verdict> verdicts = new CopyOnWriteArrayList<>();
        final Set<String> seenJti = ConcurrentHashMap.newKeySet();
        final HttpClient http = HttpClient.newHttpClient();

        @Override
        public String getName() {
            return NAME;
        }

        @Override
        public boolean applyGlobally() {
            return false;
        }

        @Override
        public ResponseDefinition transform(ServeEvent serveEvent) {
            String authorization = serveEvent.getRequest().getHeader("Authorization");
            Verdict verdict = verify(
                    authorization,
                    serveEvent.getRequest().getBody(),
                    serveEvent.getRequest().getHeader("NMC-Cursor"));
            verdicts.add(verdict);
            return verdict.valid()
                    ? serveEvent.getResponseDefinition()
                    : aResponse().withStatus(401).build();
        }

        private Verdict verify(String authorization, byte[] body, String cursor) {
            if (authorization == null || !authorization.startsWith("Bearer ")) {
                return new Verdict(false, null, "no bearer token");
            }
            try {
                SignedJWT jwt = SignedJWT.parse(authorization.substring("Bearer ".length()));
                String kid = jwt.getHeader().getKeyID();
                JWK key = key(kid, false);
                if (key == null) {
                    key = key(kid, true); // an unknown kid: the DV fetches the JWKS again, once
                }
                if (key == null) {
                    return new Verdict(false, kid, "unknown kid");
                }
                JWSVerifier verifier =
                        key instanceof ECKey ec ? new ECDSAVerifier(ec) : new RSASSAVerifier((RSAKey) key);
                if (!jwt.verify(verifier)) {
                    return new Verdict(false, kid, "signature");
                }
                JWTClaimsSet claims = jwt.getJWTClaimsSet();
                Date iat = claims.getIssueTime();
                Date exp = claims.getExpirationTime();
                if (!issuer.equals(claims.getIssuer()) || !claims.getAudience().equals(List.of(url()))) {
                    return new Verdict(false, kid, "iss or aud");
                }
                if (iat == null
                        || exp == null
                        || exp.toInstant().isBefore(Instant.now())
                        || Duration.between(iat.toInstant(), exp.toInstant()).compareTo(Duration.ofMinutes(5)) > 0) {
                    return new Verdict(false, kid, "iat or exp");
                }
                String bodyHash = java.util.Base64.getUrlEncoder()
                        .withoutPadding()
                        .encodeToString(java.security.MessageDigest.getInstance("SHA-256")
                                .digest(body));
                if (!bodyHash.equals(claims.getStringClaim("body_sha256"))
                        || cursor == null
                        || !cursor.equals(claims.getStringClaim("nmc_cursor"))) {
                    return new Verdict(false, kid, "body or cursor not the token's");
                }
                if (claims.getJWTID() == null || !seenJti.add(claims.getJWTID())) {
                    return new Verdict(false, kid, "jti replayed");
                }
                return new Verdict(true, kid, null);
            } catch (Exception e) {
                return new Verdict(false, null, e.getClass().getSimpleName());
            }
        }

        private JWK key(String kid, boolean refresh) throws Exception {
            if (cached == null || refresh) {
                String body = http.send(
                                HttpRequest.newBuilder(URI.create(jwksUrl)).build(),
                                HttpResponse.BodyHandlers.ofString())
                        .body();
                cached = JWKSet.parse(body);
            }
            return cached.getKeyByKeyId(kid);
        }
    }
}
