package nl.overheid.moz.nmc.api;

import io.helidon.common.Errors;
import io.helidon.security.jwt.Jwt;
import io.helidon.security.jwt.SignedJwt;
import io.helidon.security.jwt.Validator;
import io.helidon.security.jwt.jwk.Jwk;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Logger;

/**
 * The one verification of an IAM gateway access token, for the DV API and the operator API alike: signed with
 * RS256 or ES256 by a key in the gateway's JWKS, from the configured issuer, for the audience the caller names,
 * within its validity give or take {@code auth.clock-skew}. The algorithm list is fixed and checked before any
 * key is looked up, so {@code none}, the HMAC family (a public key used as a shared secret) and anything else
 * never reach a signature check. The header's {@code typ} must be one of {@code auth.token-types} (an access
 * token, not an ID token or another JWT the gateway signs), and the token must say when it was issued and live
 * no longer than {@code auth.max-token-age}, so a token minted with a far expiry is no lasting key. Every failure
 * is the same 401; the reason is only logged (without the token).
 *
 * <p>A DV sends the same token with every call until it expires, and the RSA check of its signature was a tenth of
 * the NMC's CPU per acceptance (JFR, benchmark acceptance), parsing the token (Base64 and JSON) another 6 % and some
 * 60 KB of garbage per call. So an accepted token is remembered, parsed, with the key its signature was checked
 * under: the same token (all of it, signature included, known by its SHA-256 so that no bearer token is kept in
 * memory) under the same key object of the current JWKS is neither parsed nor checked again. Everything else is
 * checked on every call (type, algorithm, issuer, audience, expiry, age), and a key that is rotated or withdrawn is
 * a new key set and so a new check. At most {@value #REMEMBERED} tokens are remembered; when full the memory starts
 * over.
 */
public final class TokenVerifier {

    private static final Logger LOG = Logger.getLogger(TokenVerifier.class.getName());
    private static final Set<String> ALGORITHMS = Set.of("RS256", "ES256");

    private final JwksSource jwks;
    private final String issuer;
    private final Duration clockSkew;
    private final Duration maxTokenAge;
    private final Set<String> tokenTypes;
    private final Clock clock;
    /** Accepted tokens, by their SHA-256: the token as parsed and the key its signature was checked under. */
    private final Map<String, Remembered> checkedSignatures = new ConcurrentHashMap<>();

    private record Remembered(Jwt jwt, Jwk key) {}

    private final AtomicLong signatureChecks = new AtomicLong();
    private final AtomicLong parses = new AtomicLong();

    static final int REMEMBERED = 1024;

    /** Verifies tokens of {@code issuer} under the rules of {@code auth} (skew, age, types). */
    public TokenVerifier(JwksSource jwks, String issuer, DvAuthenticator.AuthSettings auth, Clock clock) {
        this.jwks = jwks;
        this.issuer = issuer;
        this.clockSkew = auth.clockSkew();
        this.maxTokenAge = auth.maxTokenAge();
        this.tokenTypes =
                auth.tokenTypes().stream().map(TokenVerifier::mediaType).collect(java.util.stream.Collectors.toSet());
        this.clock = clock;
    }

    /** RFC 7515 §4.1.9: {@code typ} is a media type, compared without case, {@code application/} may be left out. */
    private static String mediaType(String type) {
        String lower = type.toLowerCase(java.util.Locale.ROOT);
        return lower.startsWith("application/") ? lower.substring("application/".length()) : lower;
    }

    /** The token of an {@code Authorization: Bearer …} header, or a 401 problem. */
    public static String bearer(Optional<String> authorization) {
        return authorization
                .filter(value -> value.regionMatches(true, 0, "Bearer ", 0, 7))
                .map(value -> value.substring(7).trim())
                .filter(value -> !value.isEmpty())
                .orElseThrow(() -> ProblemException.unauthorized("Een bearer-token is vereist."));
    }

    /** The verified token for {@code audience}, or a 401 problem. */
    public Jwt verify(String token, String audience) {
        String fingerprint = fingerprint(token);
        Remembered remembered = checkedSignatures.get(fingerprint);
        Parsed parsed = remembered == null ? parse(token) : null;
        Jwt jwt = remembered == null ? parsed.jwt() : remembered.jwt();
        String type = jwt.type().map(TokenVerifier::mediaType).orElse("");
        if (!tokenTypes.contains(type)) {
            throw refuse("token type " + (type.isEmpty() ? "absent" : type) + " is not accepted");
        }
        String algorithm = jwt.algorithm().orElse("none");
        if (!ALGORITHMS.contains(algorithm)) {
            throw refuse("algorithm " + algorithm + " is not accepted");
        }
        String keyId = jwt.keyId().orElseThrow(() -> refuse("token has no kid"));
        Jwk key = jwks.key(keyId).orElseThrow(() -> refuse("unknown signing key"));
        if (!algorithm.equals(key.algorithm())) {
            throw refuse("key and token algorithm differ");
        }
        boolean checked = remembered != null && remembered.key() == key;
        if (!checked) {
            signatureChecks.incrementAndGet();
            Errors signature = (parsed == null ? parse(token) : parsed).signed().verifySignature(jwks.keys(), key);
            if (!signature.isValid()) {
                throw refuse("signature does not verify");
            }
        }
        Instant now = clock.instant();
        List<Validator<Jwt>> validators = new ArrayList<>(Jwt.defaultTimeValidators(
                now, (int) clockSkew.toSeconds(), java.time.temporal.ChronoUnit.SECONDS, true));
        Jwt.addIssuerValidator(validators, issuer, true);
        Jwt.addAudienceValidator(validators, audience, true);
        Errors claims;
        try {
            claims = jwt.validate(validators);
        } catch (RuntimeException unreadable) {
            throw refuse("claims do not validate");
        }
        if (!claims.isValid()) {
            throw refuse("claims do not validate");
        }
        Instant issued = jwt.issueTime().orElseThrow(() -> refuse("token has no iat"));
        Instant expires = jwt.expirationTime().orElseThrow(() -> refuse("token has no exp"));
        Duration allowed = maxTokenAge.plus(clockSkew);
        if (Duration.between(issued, expires).compareTo(allowed) > 0
                || Duration.between(issued, now).compareTo(allowed) > 0) {
            throw refuse("token lives or has lived longer than auth.max-token-age");
        }
        if (!checked) {
            if (checkedSignatures.size() >= REMEMBERED) {
                checkedSignatures.clear();
            }
            checkedSignatures.put(fingerprint, new Remembered(jwt, key));
        }
        return jwt;
    }

    /** A token as signed and as read. */
    private record Parsed(SignedJwt signed, Jwt jwt) {}

    /**
     * The token parsed and its claims read, or a 401: Helidon's JWT converts the registered claims ({@code exp} as
     * an instant, {@code zoneinfo} as a zone, …) when it builds the {@link Jwt}, and throws on one that does not.
     */
    private Parsed parse(String token) {
        parses.incrementAndGet();
        try {
            SignedJwt signed = SignedJwt.parseToken(token);
            return new Parsed(signed, signed.getJwt());
        } catch (RuntimeException e) {
            throw refuse("token does not parse");
        }
    }

    private static String fingerprint(String token) {
        try {
            return java.util.HexFormat.of()
                    .formatHex(java.security.MessageDigest.getInstance("SHA-256")
                            .digest(token.getBytes(java.nio.charset.StandardCharsets.UTF_8)));
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    /** How many signatures were checked (for the test of what is remembered). */
    long signatureChecks() {
        return signatureChecks.get();
    }

    /** How many tokens were parsed (for the test of what is remembered). */
    long parses() {
        return parses.get();
    }

    static ProblemException refuse(String reason) {
        LOG.fine(() -> "token refused: " + reason);
        return ProblemException.unauthorized("Het token is ongeldig, verlopen of niet voor deze API bestemd.");
    }
}
