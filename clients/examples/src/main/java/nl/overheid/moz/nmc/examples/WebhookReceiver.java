package nl.overheid.moz.nmc.examples;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.jwk.source.JWKSource;
import com.nimbusds.jose.jwk.source.JWKSourceBuilder;
import com.nimbusds.jose.proc.JWSVerificationKeySelector;
import com.nimbusds.jose.proc.SecurityContext;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.proc.DefaultJWTClaimsVerifier;
import com.nimbusds.jwt.proc.DefaultJWTProcessor;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import nl.overheid.moz.nmc.client.ApiException;
import nl.overheid.moz.nmc.client.api.WijzigingenApi;
import nl.overheid.moz.nmc.client.model.Bevestiging;

/**
 * How a DV receives the NMC's webhook: it verifies the bearer token with an off-the-shelf library against the
 * NMC's published keys (signature, {@code iss}, {@code aud} = its own URL, {@code exp}, at most five minutes
 * of validity, {@code body_sha256} = the SHA-256 of the body received, {@code nmc_cursor} = the call's
 * {@code NMC-Cursor}, a {@code jti} not seen before), stores the batch (here: prints it), answers 204, and then
 * acknowledges the call's {@code NMC-Cursor} through the SDK — a 2xx alone is no acknowledgement. Events are
 * processed per notification by {@code sequence}, ignoring a lower one after a higher one. It also prints
 * what arrives on its management channel ({@code /beheer}).
 *
 * <p>{@code scripts/run} starts it for dev DV 1 on port 8084; alone: {@code scripts/dv-example webhook}.
 * Environment: {@code NMC_BASE_URL}, {@code NMC_TOKEN}, {@code WEBHOOK_PORT} (8084), {@code WEBHOOK_URL} (the URL
 * registered for the DV: the tokens' audience), {@code NMC_ISSUER}.
 */
public final class WebhookReceiver {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** A batch of 1000 events stays well below this. */
    private static final int MAX_BODY_BYTES = 8 * 1024 * 1024;

    private final DefaultJWTProcessor<SecurityContext> tokens = new DefaultJWTProcessor<>();
    private final Map<String, Instant> seenJti = new ConcurrentHashMap<>();
    private final Map<UUID, Integer> highest = new ConcurrentHashMap<>();
    private final WijzigingenApi api;

    WebhookReceiver(URI jwks, String issuer, String audience, WijzigingenApi api) throws IOException {
        JWKSource<SecurityContext> keys =
                JWKSourceBuilder.create(jwks.toURL()).retrying(true).build();
        tokens.setJWSKeySelector(
                new JWSVerificationKeySelector<>(Set.of(JWSAlgorithm.ES256, JWSAlgorithm.RS256), keys));
        tokens.setJWTClaimsSetVerifier(new DefaultJWTClaimsVerifier<>(
                audience, new JWTClaimsSet.Builder().issuer(issuer).build(), Set.of("iat", "exp", "jti")));
        this.api = api;
    }

    public static void main(String[] args) throws IOException {
        int port = Integer.parseInt(FeedReader.Env.get("WEBHOOK_PORT", "8084"));
        String audience = FeedReader.Env.get("WEBHOOK_URL", "http://127.0.0.1:" + port + "/webhook");
        String base = FeedReader.Env.get("NMC_BASE_URL", "http://localhost:8080");
        WebhookReceiver receiver = new WebhookReceiver(
                URI.create(base + "/.well-known/jwks.json"),
                FeedReader.Env.get("NMC_ISSUER", "http://localhost:8080"),
                audience,
                new WijzigingenApi(FeedReader.Env.client(FeedReader.Env.required("NMC_TOKEN"))));
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", port), 0);
        server.createContext("/webhook", receiver::webhook);
        server.createContext("/beheer", WebhookReceiver::management);
        server.start();
        System.out.println("webhook receiver: listening on " + audience + " (management channel: /beheer)");
    }

    void webhook(HttpExchange exchange) throws IOException {
        try (exchange) {
            if (!exchange.getRequestMethod().equals("POST")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            // The body is read (bounded) before the token is checked: the token names its hash.
            byte[] body = exchange.getRequestBody().readNBytes(MAX_BODY_BYTES + 1);
            String cursor = exchange.getRequestHeaders().getFirst("NMC-Cursor");
            String refused = body.length > MAX_BODY_BYTES
                    ? "body too large"
                    : verify(exchange.getRequestHeaders().getFirst("Authorization"), body, cursor);
            if (refused != null) {
                System.out.println("webhook receiver: refused a call: " + refused);
                exchange.sendResponseHeaders(401, -1);
                return;
            }
            JsonNode batch = MAPPER.readTree(body);
            System.out.println("webhook receiver: a batch of " + batch.size() + " event(s)");
            for (JsonNode event : batch) {
                UUID subject = UUID.fromString(event.path("subject").asText());
                int sequence = Integer.parseInt(event.path("sequence").asText());
                Integer seen = highest.merge(subject, sequence, Math::max);
                System.out.println("  " + subject + " #" + sequence + " "
                        + event.path("data").path("naar").asText()
                        + (seen > sequence ? " (ignored: already at #" + seen + ")" : ""));
            }
            exchange.getResponseHeaders().set("API-Version", "1.1.0");
            exchange.sendResponseHeaders(204, -1);
            acknowledge(cursor);
        }
    }

    /**
     * Null when the token is valid for this call; else why not. The token binds the call's body (its SHA-256) and
     * cursor, so a leaked token cannot carry other events.
     */
    String verify(String authorization, byte[] body, String cursor) {
        if (authorization == null || !authorization.startsWith("Bearer ")) {
            return "no bearer token";
        }
        try {
            JWTClaimsSet claims = tokens.process(authorization.substring("Bearer ".length()), null);
            String bodyHash = Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(MessageDigest.getInstance("SHA-256").digest(body));
            if (!bodyHash.equals(claims.getStringClaim("body_sha256"))) {
                return "the body is not the one the token was made for";
            }
            if (cursor == null || !cursor.equals(claims.getStringClaim("nmc_cursor"))) {
                return "the cursor is not the one the token was made for";
            }
            if (Duration.between(
                                    claims.getIssueTime().toInstant(),
                                    claims.getExpirationTime().toInstant())
                            .compareTo(Duration.ofMinutes(5))
                    > 0) {
                return "valid for more than five minutes";
            }
            Instant now = Instant.now();
            seenJti.values().removeIf(expiry -> expiry.isBefore(now));
            if (seenJti.putIfAbsent(
                            claims.getJWTID(), claims.getExpirationTime().toInstant())
                    != null) {
                return "jti seen before";
            }
            return null;
        } catch (Exception e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private void acknowledge(String cursor) {
        try {
            api.wijzigingenBevestigen(new Bevestiging().cursor(cursor));
        } catch (ApiException e) {
            // The next batch's cursor acknowledges this one too; the feed stays the fallback.
            System.out.println("webhook receiver: acknowledgement not taken (" + e.getCode() + ")");
        }
    }

    static void management(HttpExchange exchange) throws IOException {
        try (exchange) {
            System.out.println("management channel: " + read(exchange.getRequestBody()));
            exchange.sendResponseHeaders(204, -1);
        }
    }

    private static JsonNode read(InputStream body) throws IOException {
        return MAPPER.readTree(body.readNBytes(1 << 20));
    }
}
