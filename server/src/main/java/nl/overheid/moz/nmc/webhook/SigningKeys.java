package nl.overheid.moz.nmc.webhook;

import io.helidon.config.Config;
import io.helidon.security.jwt.Jwt;
import io.helidon.security.jwt.SignedJwt;
import io.helidon.security.jwt.jwk.Jwk;
import io.helidon.security.jwt.jwk.JwkEC;
import io.helidon.security.jwt.jwk.JwkRSA;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.interfaces.RSAPublicKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
import java.security.spec.X509EncodedKeySpec;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The NMC's keys for the webhook's bearer tokens, from configuration ({@code webhook.signing-keys}), and the
 * public half as a JWKS. Rotation is a schedule in the configuration, on the NMC's clock: a key is
 * published from {@code publish-from} and signs from {@code sign-from}; the newest key whose
 * {@code sign-from} has come signs, and an older key stays published until the last token it signed has
 * expired. A key must be published at least {@code jwks-max-age} before it signs, so a DV's cached JWKS
 * already holds it. Keys are EC P-256 (ES256) or RSA (RS256), PEM-encoded (PKCS#8 private, X.509 public).
 */
public final class SigningKeys {

    /** One configured key and its schedule. */
    record Key(String kid, String alg, Jwk jwk, Map<String, Object> publicJwk, Instant publishFrom, Instant signFrom) {}

    private final List<Key> keys;
    private final URI issuer;
    private final Duration tokenLifetime;
    private final Clock clock;
    private final Clock tokenClock;

    /**
     * @param tokenClock the time of the tokens' {@code iat} and {@code exp}: the real time, since the DV checks
     *                   them against its own clock (rotation follows {@code clock})
     */
    SigningKeys(
            List<Key> keys, URI issuer, Duration tokenLifetime, Duration jwksMaxAge, Clock clock, Clock tokenClock) {
        if (keys.isEmpty()) {
            throw new IllegalArgumentException("webhook.signing-keys: at least one key is needed");
        }
        List<Key> sorted = new ArrayList<>(keys);
        sorted.sort(Comparator.comparing(Key::signFrom));
        for (int i = 1; i < sorted.size(); i++) {
            Key key = sorted.get(i);
            if (Duration.between(key.publishFrom(), key.signFrom()).compareTo(jwksMaxAge) < 0) {
                throw new IllegalArgumentException("webhook.signing-keys: key " + key.kid()
                        + " must be published at least jwks-max-age (" + jwksMaxAge + ") before it signs");
            }
            if (key.signFrom().equals(sorted.get(i - 1).signFrom())) {
                throw new IllegalArgumentException("webhook.signing-keys: two keys sign from " + key.signFrom());
            }
        }
        if (sorted.stream().map(Key::kid).distinct().count() != sorted.size()) {
            throw new IllegalArgumentException("webhook.signing-keys: every kid must be unique");
        }
        this.keys = List.copyOf(sorted);
        this.issuer = issuer;
        this.tokenLifetime = tokenLifetime;
        this.clock = clock;
        this.tokenClock = tokenClock;
    }

    public static SigningKeys from(Config signingKeys, WebhookSettings settings, Clock clock) {
        List<Key> keys = signingKeys.asNodeList().orElse(List.of()).stream()
                .map(SigningKeys::key)
                .toList();
        return new SigningKeys(
                keys, settings.issuer(), settings.tokenLifetime(), settings.jwksMaxAge(), clock, Clock.systemUTC());
    }

    private static Key key(Config node) {
        String kid = node.get("kid")
                .asString()
                .orElseThrow(() -> new IllegalArgumentException("webhook.signing-keys: every key needs a kid"));
        PrivateKey privateKey = privateKey(pem(node, "private-key", kid));
        PublicKey publicKey = publicKey(node, kid, privateKey);
        Instant publishFrom =
                node.get("publish-from").asString().map(Instant::parse).orElse(Instant.EPOCH);
        Instant signFrom = node.get("sign-from").asString().map(Instant::parse).orElse(Instant.EPOCH);
        return of(kid, privateKey, publicKey, publishFrom, signFrom);
    }

    /** A key from its Java halves (configuration and tests). */
    static Key of(String kid, PrivateKey privateKey, PublicKey publicKey, Instant publishFrom, Instant signFrom) {
        Map<String, Object> jwk = new LinkedHashMap<>();
        Jwk signer;
        String alg;
        if (privateKey instanceof ECPrivateKey ec && publicKey instanceof ECPublicKey ecPublic) {
            if (ec.getParams().getCurve().getField().getFieldSize() != 256) {
                throw new IllegalArgumentException("webhook.signing-keys: key " + kid + " is not on curve P-256");
            }
            alg = JwkEC.ALG_ES256;
            signer = JwkEC.builder()
                    .privateKey(ec)
                    .publicKey(ecPublic)
                    .keyId(kid)
                    .algorithm(alg)
                    .usage("sig")
                    .build();
            jwk.put("kty", "EC");
            jwk.put("kid", kid);
            jwk.put("use", "sig");
            jwk.put("alg", alg);
            jwk.put("crv", "P-256");
            jwk.put("x", unsigned(ecPublic.getW().getAffineX(), 32));
            jwk.put("y", unsigned(ecPublic.getW().getAffineY(), 32));
        } else if (privateKey instanceof RSAPrivateCrtKey rsa && publicKey instanceof RSAPublicKey rsaPublic) {
            alg = JwkRSA.ALG_RS256;
            signer = JwkRSA.builder()
                    .privateKey(rsa)
                    .publicKey(rsaPublic)
                    .keyId(kid)
                    .algorithm(alg)
                    .usage("sig")
                    .build();
            jwk.put("kty", "RSA");
            jwk.put("kid", kid);
            jwk.put("use", "sig");
            jwk.put("alg", alg);
            jwk.put("n", unsigned(rsaPublic.getModulus(), 0));
            jwk.put("e", unsigned(rsaPublic.getPublicExponent(), 0));
        } else {
            throw new IllegalArgumentException("webhook.signing-keys: key " + kid + " is neither EC P-256 nor RSA");
        }
        return new Key(kid, alg, signer, Map.copyOf(jwk), publishFrom, signFrom);
    }

    /** The claim with the SHA-256 of the call's body (base64url, no padding), as {@code dv-webhook.yaml} says. */
    public static final String BODY_HASH_CLAIM = "body_sha256";

    /** The claim with the call's {@code NMC-Cursor}. */
    public static final String CURSOR_CLAIM = "nmc_cursor";

    /**
     * A signed bearer token for one webhook call to {@code webhookUrl} ({@code aud}) with this {@code body} and
     * {@code cursor}: both are bound into the token, so a token that leaks (a DV's log, a proxy) cannot carry other
     * events or acknowledge another position.
     */
    public String token(URI webhookUrl, byte[] body, String cursor) {
        Key key = signing();
        Instant now = tokenClock.instant();
        Jwt jwt = Jwt.builder()
                .type("JWT")
                .algorithm(key.alg())
                .keyId(key.kid())
                .issuer(issuer.toString())
                .addAudience(webhookUrl.toString())
                .issueTime(now)
                .expirationTime(now.plus(tokenLifetime))
                .jwtId(UUID.randomUUID().toString())
                .addPayloadClaim(BODY_HASH_CLAIM, bodyHash(body))
                .addPayloadClaim(CURSOR_CLAIM, cursor)
                .build();
        return SignedJwt.sign(jwt, key.jwk()).tokenContent();
    }

    /** base64url (no padding) of the SHA-256 of {@code body}. */
    public static String bodyHash(byte[] body) {
        try {
            return java.util.Base64.getUrlEncoder()
                    .withoutPadding()
                    .encodeToString(
                            java.security.MessageDigest.getInstance("SHA-256").digest(body));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The key that signs now: the newest whose {@code sign-from} has come (the oldest before any). */
    Key signing() {
        Instant now = clock.instant();
        Key current = keys.getFirst();
        for (Key key : keys) {
            if (!key.signFrom().isAfter(now)) {
                current = key;
            }
        }
        return current;
    }

    /**
     * The public keys to publish now: every key whose {@code publish-from} has come, except an older key whose
     * successor has signed for longer than a token lives (no valid token of it can exist any more).
     */
    public Map<String, Object> jwks() {
        Instant now = clock.instant();
        Key current = signing();
        List<Map<String, Object>> published = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++) {
            Key key = keys.get(i);
            boolean announced = !key.publishFrom().isAfter(now);
            boolean upcoming = key.signFrom().isAfter(now);
            // A key that has stopped signing stays until its successor has signed for longer than a token lives.
            boolean tokensMayLive = i + 1 < keys.size()
                    && keys.get(i + 1).signFrom().plus(tokenLifetime).isAfter(now);
            if (key == current || announced && (upcoming || tokensMayLive)) {
                published.add(key.publicJwk());
            }
        }
        return Map.of("keys", published);
    }

    private static String pem(Config node, String name, String kid) {
        return node.get(name)
                .asString()
                .or(() -> node.get(name + "-file").asString().map(file -> {
                    try {
                        return Files.readString(Path.of(file));
                    } catch (IOException e) {
                        throw new UncheckedIOException(
                                "webhook.signing-keys: cannot read " + name + "-file of key " + kid, e);
                    }
                }))
                .orElseThrow(() -> new IllegalArgumentException(
                        "webhook.signing-keys: key " + kid + " needs " + name + " or " + name + "-file"));
    }

    private static PublicKey publicKey(Config node, String kid, PrivateKey privateKey) {
        if (node.get("public-key").exists() || node.get("public-key-file").exists()) {
            return decodePublic(pem(node, "public-key", kid));
        }
        if (privateKey instanceof RSAPrivateCrtKey rsa) {
            try {
                return KeyFactory.getInstance("RSA")
                        .generatePublic(new RSAPublicKeySpec(rsa.getModulus(), rsa.getPublicExponent()));
            } catch (GeneralSecurityException e) {
                throw new IllegalArgumentException("webhook.signing-keys: key " + kid, e);
            }
        }
        throw new IllegalArgumentException(
                "webhook.signing-keys: EC key " + kid + " needs public-key or public-key-file");
    }

    static PrivateKey privateKey(String pem) {
        byte[] der = der(pem, "PRIVATE KEY");
        for (String algorithm : List.of("EC", "RSA")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException wrongAlgorithm) {
                // try the next
            }
        }
        throw new IllegalArgumentException("webhook.signing-keys: a private key is neither EC nor RSA PKCS#8");
    }

    static PublicKey decodePublic(String pem) {
        byte[] der = der(pem, "PUBLIC KEY");
        for (String algorithm : List.of("EC", "RSA")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePublic(new X509EncodedKeySpec(der));
            } catch (GeneralSecurityException wrongAlgorithm) {
                // try the next
            }
        }
        throw new IllegalArgumentException("webhook.signing-keys: a public key is neither EC nor RSA X.509");
    }

    private static byte[] der(String pem, String label) {
        String begin = "-----BEGIN " + label + "-----";
        String end = "-----END " + label + "-----";
        int from = pem.indexOf(begin);
        int to = pem.indexOf(end);
        if (from < 0 || to < from) {
            throw new IllegalArgumentException("webhook.signing-keys: expected a PEM " + label);
        }
        return Base64.getMimeDecoder().decode(pem.substring(from + begin.length(), to));
    }

    /** Base64url (no padding) of a non-negative integer, left-padded to {@code length} bytes when given. */
    private static String unsigned(BigInteger value, int length) {
        byte[] bytes = value.toByteArray();
        if (bytes.length > 1 && bytes[0] == 0) {
            bytes = Arrays.copyOfRange(bytes, 1, bytes.length);
        }
        if (length > bytes.length) {
            byte[] padded = new byte[length];
            System.arraycopy(bytes, 0, padded, length - bytes.length, bytes.length);
            bytes = padded;
        }
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
