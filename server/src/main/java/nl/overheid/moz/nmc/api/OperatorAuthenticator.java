package nl.overheid.moz.nmc.api;

import io.helidon.config.Config;
import io.helidon.security.jwt.Jwt;
import jakarta.json.JsonArray;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.util.Optional;
import java.util.logging.Logger;

/**
 * Authenticates an operator call on the operator API: the same verification as a DV's token
 * ({@link TokenVerifier}) but for the operator API's audience ({@code auth.operator.audience}, default
 * {@code nmc-beheer}), so a DV's token is a 401 here and an operator's a 401 on the DV API. A verified token
 * must also carry the operator role in its role claim (a JSON array or a space-separated string), else 403.
 * The caller is the token's {@code sub}, which the audit records.
 */
public final class OperatorAuthenticator {

    private static final Logger LOG = Logger.getLogger(OperatorAuthenticator.class.getName());

    /** The authenticated operator. */
    public record Operator(String subject) {}

    /**
     * Settings of operator authentication ({@code auth.operator}).
     *
     * @param audience  required {@code aud} of operator tokens
     * @param roleClaim the claim that lists the caller's roles
     * @param role      the role an operator must have
     * @param jwksUri   the JWKS of operator tokens; null: the DV tokens' gateway ({@code auth.jwks-uri})
     * @param issuer    required {@code iss}; null: {@code auth.issuer}
     */
    public record Settings(String audience, String roleClaim, String role, String jwksUri, String issuer) {

        public static Settings from(Config operator) {
            return new Settings(
                    operator.get("audience").asString().orElse("nmc-beheer"),
                    operator.get("role-claim").asString().orElse("roles"),
                    operator.get("role").asString().orElse("nmc-beheerder"),
                    operator.get("jwks-uri").asString().orElse(null),
                    operator.get("issuer").asString().orElse(null));
        }
    }

    private final Settings settings;
    private final TokenVerifier verifier;

    public OperatorAuthenticator(Settings settings, TokenVerifier verifier) {
        this.settings = settings;
        this.verifier = verifier;
    }

    /** The operator, or a 401 (no valid token for this API) or 403 (no operator role) problem. */
    public Operator authenticate(Optional<String> authorization) {
        Jwt jwt = verifier.verify(TokenVerifier.bearer(authorization), settings.audience());
        String subject = jwt.subject()
                .filter(value -> !value.isBlank() && value.length() <= 200)
                .orElseThrow(() -> TokenVerifier.refuse("operator token has no usable sub"));
        if (!hasRole(jwt)) {
            LOG.fine(() -> "operator token without the role " + settings.role());
            throw ProblemException.forbidden("Dit token geeft geen toegang tot de beheer-API.");
        }
        return new Operator(subject);
    }

    private boolean hasRole(Jwt jwt) {
        Optional<JsonValue> roles = jwt.payloadClaim(settings.roleClaim());
        if (roles.isEmpty()) {
            return false;
        }
        JsonValue value = roles.get();
        if (value instanceof JsonArray array) {
            return array.stream()
                    .anyMatch(role ->
                            role instanceof JsonString text && text.getString().equals(settings.role()));
        }
        return value instanceof JsonString text
                && java.util.Arrays.asList(text.getString().split(" ")).contains(settings.role());
    }
}
