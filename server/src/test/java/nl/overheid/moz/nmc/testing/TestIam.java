package nl.overheid.moz.nmc.testing;

import io.helidon.security.jwt.Jwt;
import io.helidon.security.jwt.SignedJwt;
import io.helidon.security.jwt.jwk.JwkKeys;
import io.helidon.security.jwt.jwk.JwkRSA;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.security.interfaces.RSAPrivateKey;
import java.security.interfaces.RSAPublicKey;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.UUID;

/**
 * A stand-in for the MOZa IAM gateway: an RSA key whose public half is published as a JWKS file, and
 * tokens signed with it (or deliberately wrong ones).
 */
public final class TestIam {

    public static final String ISSUER = "https://iam.test.moza.local";
    public static final String AUDIENCE = "nmc";

    /** Someone else's key (one for all, since RSA keys take a while to make). */
    private static final KeyPair STRANGER = generate();

    private final String keyId = "test-" + UUID.randomUUID();
    private final KeyPair keys;
    private final Path jwksFile;

    public TestIam() {
        this.keys = generate();
        try {
            this.jwksFile = Files.createTempFile("nmc-test-jwks", ".json");
            Files.writeString(jwksFile, jwks(keyId, (RSAPublicKey) keys.getPublic()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public Path jwksFile() {
        return jwksFile;
    }

    /** The JWKS document the gateway publishes (to serve it over HTTP). */
    public String jwksJson() {
        return jwksJson(JwkRSA.ALG_RS256);
    }

    /** The JWKS document with the key published for another algorithm (e.g. RS512). */
    public String jwksJson(String algorithm) {
        return jwks(keyId, (RSAPublicKey) keys.getPublic()).replace("\"RS256\"", "\"" + algorithm + "\"");
    }

    /** A valid token as of {@code now} but signed with another algorithm of the same RSA key (e.g. RS512). */
    public String tokenWithAlgorithm(String oin, String algorithm, Instant now) {
        return sign(keyId, keys, algorithm, oin, ISSUER, AUDIENCE, now, now.plus(Duration.ofHours(1)));
    }

    /**
     * HS256 over the gateway's public key as the HMAC secret, with the gateway's kid: the algorithm-confusion
     * attack on verifiers that let the token choose how the key is used.
     */
    public String hmacWithPublicKeyToken(String oin, Instant now) {
        byte[] secret = jwksJson().getBytes(StandardCharsets.UTF_8);
        io.helidon.security.jwt.jwk.JwkOctet jwk =
                io.helidon.security.jwt.jwk.JwkOctet.create(jakarta.json.Json.createObjectBuilder()
                        .add("kty", "oct")
                        .add("alg", "HS256")
                        .add("kid", keyId)
                        .add("k", Base64.getUrlEncoder().withoutPadding().encodeToString(secret))
                        .build());
        Jwt jwt = claims(keyId, "HS256", oin, ISSUER, AUDIENCE, now, now.plus(Duration.ofHours(1)));
        return SignedJwt.sign(jwt, jwk).tokenContent();
    }

    /** A valid access token for the DV with this OIN. */
    public String token(String oin) {
        return token(oin, ISSUER, AUDIENCE, Instant.now().plus(Duration.ofHours(1)));
    }

    /** A valid token as of {@code now} (tests that move the NMC's clock mint tokens on that clock). */
    public String token(String oin, Instant now) {
        return sign(keyId, keys, oin, ISSUER, AUDIENCE, now, now.plus(Duration.ofHours(1)));
    }

    public String token(String oin, String issuer, String audience, Instant expires) {
        return sign(keyId, keys, oin, issuer, audience, Instant.now(), expires);
    }

    /**
     * A DV token issued at {@code now} (less five seconds), living {@code lifetime}, with the header {@code typ}
     * {@code type} (null: none).
     */
    public String token(String oin, Instant now, Duration lifetime, String type) {
        JwkRSA jwk = JwkRSA.builder()
                .keyId(keyId)
                .algorithm(JwkRSA.ALG_RS256)
                .publicKey((RSAPublicKey) keys.getPublic())
                .privateKey((RSAPrivateKey) keys.getPrivate())
                .build();
        Jwt jwt = claims(
                keyId,
                JwkRSA.ALG_RS256,
                oin,
                ISSUER,
                AUDIENCE,
                now,
                now.minusSeconds(5).plus(lifetime),
                type);
        return SignedJwt.sign(jwt, JwkKeys.builder().addKey(jwk).build()).tokenContent();
    }

    /** The audience of the operator API's tokens, and the role an operator has. */
    public static final String OPERATOR_AUDIENCE = "nmc-beheer";

    public static final String OPERATOR_ROLE = "nmc-beheerder";

    /** An operator's token as of {@code now}: the operator API's audience, the operator role, {@code sub}. */
    public String operatorToken(String subject, Instant now) {
        return operatorToken(subject, OPERATOR_AUDIENCE, java.util.List.of(OPERATOR_ROLE), now);
    }

    /** A token of the gateway with any audience and roles (no {@code oin} claim). */
    public String operatorToken(String subject, String audience, java.util.List<String> roles, Instant now) {
        JwkRSA jwk = JwkRSA.builder()
                .keyId(keyId)
                .algorithm(JwkRSA.ALG_RS256)
                .publicKey((RSAPublicKey) keys.getPublic())
                .privateKey((RSAPrivateKey) keys.getPrivate())
                .build();
        Jwt jwt = Jwt.builder()
                .type("at+jwt") // RFC 9068's access token
                .keyId(keyId)
                .algorithm(JwkRSA.ALG_RS256)
                .issuer(ISSUER)
                .audience(java.util.List.of(audience))
                .subject(subject)
                .addPayloadClaim("roles", roles)
                .issueTime(now.minusSeconds(5))
                .notBefore(now.minusSeconds(5))
                .expirationTime(now.plus(Duration.ofHours(1)))
                .jwtId(UUID.randomUUID().toString())
                .build();
        return SignedJwt.sign(jwt, JwkKeys.builder().addKey(jwk).build()).tokenContent();
    }

    /** Signed by a key the gateway never published (same kid, other key). */
    public String forgedToken(String oin) {
        return sign(
                keyId,
                generate(),
                oin,
                ISSUER,
                AUDIENCE,
                Instant.now(),
                Instant.now().plus(Duration.ofHours(1)));
    }

    /** Signed by a key under a random kid the gateway never published. */
    public String unknownKeyToken(String oin) {
        return sign(
                "unknown-" + UUID.randomUUID(),
                STRANGER,
                oin,
                ISSUER,
                AUDIENCE,
                Instant.now(),
                Instant.now().plus(Duration.ofHours(1)));
    }

    /** An unsigned token ({@code alg: none}) with valid claims. */
    public String unsignedToken(String oin) {
        Base64.Encoder b64 = Base64.getUrlEncoder().withoutPadding();
        long now = Instant.now().getEpochSecond();
        String header = b64.encodeToString(
                ("{\"alg\":\"none\",\"typ\":\"JWT\",\"kid\":\"" + keyId + "\"}").getBytes(StandardCharsets.UTF_8));
        String claims = b64.encodeToString(("{\"iss\":\"" + ISSUER + "\",\"aud\":\"" + AUDIENCE + "\",\"oin\":\"" + oin
                        + "\",\"iat\":" + now + ",\"exp\":" + (now + 3600) + "}")
                .getBytes(StandardCharsets.UTF_8));
        return header + "." + claims + ".";
    }

    private static String sign(
            String kid, KeyPair pair, String oin, String issuer, String audience, Instant now, Instant expires) {
        return sign(kid, pair, JwkRSA.ALG_RS256, oin, issuer, audience, now, expires);
    }

    private static String sign(
            String kid,
            KeyPair pair,
            String algorithm,
            String oin,
            String issuer,
            String audience,
            Instant now,
            Instant expires) {
        JwkRSA jwk = JwkRSA.builder()
                .keyId(kid)
                .algorithm(algorithm)
                .publicKey((RSAPublicKey) pair.getPublic())
                .privateKey((RSAPrivateKey) pair.getPrivate())
                .build();
        return SignedJwt.sign(
                        claims(kid, algorithm, oin, issuer, audience, now, expires),
                        JwkKeys.builder().addKey(jwk).build())
                .tokenContent();
    }

    private static Jwt claims(
            String kid, String algorithm, String oin, String issuer, String audience, Instant now, Instant expires) {
        return claims(kid, algorithm, oin, issuer, audience, now, expires, "JWT"); // as most gateways write it
    }

    private static Jwt claims(
            String kid,
            String algorithm,
            String oin,
            String issuer,
            String audience,
            Instant now,
            Instant expires,
            String type) {
        Jwt.Builder builder = Jwt.builder();
        if (type != null) {
            builder.type(type);
        }
        return builder.keyId(kid)
                .algorithm(algorithm)
                .issuer(issuer)
                .audience(java.util.List.of(audience))
                .subject(oin)
                .addPayloadClaim("oin", oin)
                .issueTime(now.minusSeconds(5))
                .notBefore(now.minusSeconds(5))
                .expirationTime(expires)
                .jwtId(UUID.randomUUID().toString())
                .build();
    }

    private static String jwks(String kid, RSAPublicKey key) {
        return "{\"keys\":[{\"kty\":\"RSA\",\"kid\":\"" + kid + "\",\"use\":\"sig\",\"alg\":\"RS256\",\"n\":\""
                + unsigned(key.getModulus()) + "\",\"e\":\"" + unsigned(key.getPublicExponent()) + "\"}]}";
    }

    private static String unsigned(BigInteger value) {
        byte[] bytes = value.toByteArray();
        if (bytes.length > 1 && bytes[0] == 0) {
            bytes = java.util.Arrays.copyOfRange(bytes, 1, bytes.length);
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    private static KeyPair generate() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
