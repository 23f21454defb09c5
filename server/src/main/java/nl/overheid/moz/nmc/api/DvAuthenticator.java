package nl.overheid.moz.nmc.api;

import io.helidon.security.jwt.Jwt;
import java.time.Duration;
import java.util.Optional;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.register.Dienstverlener;
import nl.overheid.moz.nmc.register.Register;

/**
 * Authenticates a DV call: an OAuth2 bearer access token from the MOZa IAM gateway, signed with RS256 or
 * ES256 by a key in the gateway's JWKS, for the DV API's audience ({@code auth.audience}), verified by the one
 * {@link TokenVerifier} the operator API shares (with its own audience). The OIN claim is mapped to a DV by the
 * register; a token for another audience (an operator's) is refused here. Every failure is the same 401 to the caller; the reason
 * is only logged (without the token).
 */
public final class DvAuthenticator {

    private static final Logger LOG = Logger.getLogger(DvAuthenticator.class.getName());

    private final TokenVerifier verifier;
    private final Register register;
    private final AuthSettings settings;

    public DvAuthenticator(AuthSettings settings, TokenVerifier verifier, Register register) {
        this.settings = settings;
        this.verifier = verifier;
        this.register = register;
    }

    /** The authenticated caller, or a 401 problem. */
    public Dienstverlener authenticate(Optional<String> authorization) {
        Jwt jwt = verifier.verify(TokenVerifier.bearer(authorization), settings.audience());
        String oin = jwt.payloadClaim(settings.oinClaim())
                .filter(value -> value.getValueType() == jakarta.json.JsonValue.ValueType.STRING)
                .map(value -> ((jakarta.json.JsonString) value).getString())
                .orElseThrow(() -> refuse("token has no " + settings.oinClaim() + " claim"));
        return register.dienstverlenerByOin(oin).orElseThrow(() -> refuse("OIN is not in the DV register"));
    }

    private static ProblemException refuse(String reason) {
        LOG.fine(() -> "DV token refused: " + reason);
        return ProblemException.unauthorized("Het token is ongeldig, verlopen of niet voor het NMC bestemd.");
    }

    /**
     * Settings of DV authentication ({@code auth} subtree).
     *
     * @param jwksUri  the IAM gateway's JWKS ({@code https:} or {@code file:}; {@code http:} in dev only)
     * @param issuer   required {@code iss}
     * @param audience required {@code aud}
     * @param oinClaim the claim that carries the DV's OIN
     * @param clockSkew how far {@code exp}, {@code nbf} and {@code iat} may be off our clock (whole seconds)
     * @param jwksRefreshInterval how long the gateway's keys are used before they are fetched again
     * @param jwksMaxFetchesPerMinute how often the JWKS may be fetched per minute, for whatever reason
     * @param maxTokenAge the longest a token may live ({@code exp - iat}) and the oldest it may be ({@code now - iat}),
     *                    give or take the clock skew
     * @param tokenTypes the header {@code typ} values accepted (media types: {@code at+jwt} is RFC 9068's access
     *                   token, {@code JWT} what most gateways write); a token without {@code typ} is refused
     */
    public record AuthSettings(
            String jwksUri,
            String issuer,
            String audience,
            String oinClaim,
            Duration clockSkew,
            Duration jwksRefreshInterval,
            int jwksMaxFetchesPerMinute,
            Duration maxTokenAge,
            java.util.List<String> tokenTypes) {

        public static final Duration DEFAULT_CLOCK_SKEW = Duration.ofSeconds(60);
        public static final Duration DEFAULT_MAX_TOKEN_AGE = Duration.ofHours(1);
        public static final java.util.List<String> DEFAULT_TOKEN_TYPES = java.util.List.of("at+jwt", "JWT");
        public static final Duration DEFAULT_JWKS_REFRESH_INTERVAL = Duration.ofMinutes(10);
        public static final int DEFAULT_JWKS_MAX_FETCHES_PER_MINUTE = 2;

        public AuthSettings {
            if (clockSkew.isNegative() || clockSkew.compareTo(Duration.ofMinutes(5)) > 0) {
                throw new IllegalArgumentException("auth.clock-skew must be between 0 and 5 minutes");
            }
            if (maxTokenAge.isNegative() || maxTokenAge.isZero() || maxTokenAge.compareTo(Duration.ofHours(24)) > 0) {
                throw new IllegalArgumentException("auth.max-token-age must be positive and at most a day");
            }
            if (tokenTypes.isEmpty()) {
                throw new IllegalArgumentException("auth.token-types must name at least one type");
            }
            tokenTypes = java.util.List.copyOf(tokenTypes);
        }

        public static AuthSettings from(io.helidon.config.Config auth) {
            return new AuthSettings(
                    auth.get("jwks-uri")
                            .asString()
                            .orElseThrow(() -> new IllegalArgumentException("auth.jwks-uri is required")),
                    auth.get("issuer")
                            .asString()
                            .orElseThrow(() -> new IllegalArgumentException("auth.issuer is required")),
                    auth.get("audience").asString().orElse("nmc"),
                    auth.get("oin-claim").asString().orElse("oin"),
                    auth.get("clock-skew").as(Duration.class).orElse(DEFAULT_CLOCK_SKEW),
                    auth.get("jwks-refresh-interval").as(Duration.class).orElse(DEFAULT_JWKS_REFRESH_INTERVAL),
                    auth.get("jwks-max-fetches-per-minute").asInt().orElse(DEFAULT_JWKS_MAX_FETCHES_PER_MINUTE),
                    auth.get("max-token-age").as(Duration.class).orElse(DEFAULT_MAX_TOKEN_AGE),
                    auth.get("token-types").asList(String.class).orElse(DEFAULT_TOKEN_TYPES));
        }
    }
}
