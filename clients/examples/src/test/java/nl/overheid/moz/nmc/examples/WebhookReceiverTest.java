package nl.overheid.moz.nmc.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.nimbusds.jose.JOSEObjectType;
import com.nimbusds.jose.JWSAlgorithm;
import com.nimbusds.jose.JWSHeader;
import com.nimbusds.jose.crypto.ECDSASigner;
import com.nimbusds.jose.jwk.Curve;
import com.nimbusds.jose.jwk.ECKey;
import com.nimbusds.jose.jwk.JWKSet;
import com.nimbusds.jose.jwk.gen.ECKeyGenerator;
import com.nimbusds.jwt.JWTClaimsSet;
import com.nimbusds.jwt.SignedJWT;
import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.UUID;
import nl.overheid.moz.nmc.client.api.WijzigingenApi;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The example receiver refuses what dv-webhook.yaml tells a DV to refuse: above all a token that does not bind the
 * body and cursor it arrives with, so a leaked token cannot carry other events. The tokens are made here as the
 * NMC makes them (its own code is tested against a stub DV in the server's WebhookTest).
 */
class WebhookReceiverTest {

    private static final String ISSUER = "https://nmc.example.nl";
    private static final String AUDIENCE = "https://dv.example.nl/webhook";
    private static final byte[] BODY = "[{\"specversion\":\"1.0\",\"id\":\"1\"}]".getBytes(StandardCharsets.UTF_8);
    private static final String CURSOR = "AAAAAQ.cursor";

    private ECKey key;
    private HttpServer jwks;
    private WebhookReceiver receiver;

    @BeforeEach
    void start() throws Exception {
        key = new ECKeyGenerator(Curve.P_256).keyID("nmc-1").generate();
        String published = new JWKSet(key.toPublicJWK()).toString();
        jwks = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        jwks.createContext("/jwks.json", exchange -> {
            byte[] body = published.getBytes(StandardCharsets.UTF_8);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        jwks.start();
        receiver = new WebhookReceiver(
                URI.create("http://127.0.0.1:" + jwks.getAddress().getPort() + "/jwks.json"),
                ISSUER,
                AUDIENCE,
                new WijzigingenApi());
    }

    @AfterEach
    void stop() {
        jwks.stop(0);
    }

    @Test
    void aTokenMadeForThisBodyAndCursorIsTaken() throws Exception {
        assertThat(receiver.verify(bearer(hash(BODY), CURSOR), BODY, CURSOR)).isNull();
    }

    @Test
    void aTokenCarriedWithOtherEventsIsRefused() throws Exception {
        byte[] other = "[{\"specversion\":\"1.0\",\"id\":\"2\"}]".getBytes(StandardCharsets.UTF_8);
        assertThat(receiver.verify(bearer(hash(BODY), CURSOR), other, CURSOR)).contains("body");
    }

    @Test
    void aTokenCarriedWithAnotherCursorIsRefused() throws Exception {
        assertThat(receiver.verify(bearer(hash(BODY), CURSOR), BODY, "AAAAAg.other"))
                .contains("cursor");
        assertThat(receiver.verify(bearer(hash(BODY), CURSOR), BODY, null)).contains("cursor");
    }

    @Test
    void aTokenWithoutTheBindingClaimsIsRefused() throws Exception {
        assertThat(receiver.verify(bearer(null, null), BODY, CURSOR)).isNotNull();
    }

    @Test
    void aTokenSeenBeforeIsRefusedEvenForItsOwnBody() throws Exception {
        String token = bearer(hash(BODY), CURSOR);
        assertThat(receiver.verify(token, BODY, CURSOR)).isNull();
        assertThat(receiver.verify(token, BODY, CURSOR)).contains("jti");
    }

    private String bearer(String bodyHash, String cursor) throws Exception {
        Instant now = Instant.now();
        JWTClaimsSet.Builder claims = new JWTClaimsSet.Builder()
                .issuer(ISSUER)
                .audience(AUDIENCE)
                .issueTime(Date.from(now))
                .expirationTime(Date.from(now.plusSeconds(300)))
                .jwtID(UUID.randomUUID().toString());
        if (bodyHash != null) {
            claims.claim("body_sha256", bodyHash).claim("nmc_cursor", cursor);
        }
        SignedJWT jwt = new SignedJWT(
                new JWSHeader.Builder(JWSAlgorithm.ES256)
                        .keyID(key.getKeyID())
                        .type(JOSEObjectType.JWT)
                        .build(),
                claims.build());
        jwt.sign(new ECDSASigner(key));
        return "Bearer " + jwt.serialize();
    }

    private static String hash(byte[] body) throws Exception {
        return Base64.getUrlEncoder()
                .withoutPadding()
                .encodeToString(MessageDigest.getInstance("SHA-256").digest(body));
    }
}
