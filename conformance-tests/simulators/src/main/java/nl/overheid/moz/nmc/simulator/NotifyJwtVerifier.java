package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.http.HttpHeader;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Notify's API authentication ({@code app/authentication/auth.py} with
 * {@code notifications_python_client.authentication.decode_jwt_token}), for the services the simulator knows,
 * each with one API key.
 *
 * <p>Every {@code /v2} request carries {@code Authorization: Bearer <JWT>}: header
 * {@code {"typ":"JWT","alg":"HS256"}}, claims {@code iss} = the service id and {@code iat} = epoch seconds,
 * signed with HMAC-SHA256 keyed by the UTF-8 bytes of the secret of that service's API key (the last 36
 * characters of the key). The request then acts for that service. The checks run in Notify's order and fail with Notify's status and message:
 *
 * <table>
 *   <caption>Failures</caption>
 *   <tr><th>condition</th><th>status</th><th>message</th></tr>
 *   <tr><td>no {@code Authorization} header</td><td>401</td><td>{@value #NO_TOKEN}</td></tr>
 *   <tr><td>scheme other than {@code Bearer}</td><td>401</td><td>{@value #NOT_BEARER}</td></tr>
 *   <tr><td>not a decodable JWT, or an {@code aud} claim</td><td>403</td><td>{@value #GENERAL_TOKEN_ERROR}</td></tr>
 *   <tr><td>no {@code iss}</td><td>403</td><td>{@value #NO_ISSUER}</td></tr>
 *   <tr><td>{@code iss} not a UUID</td><td>403</td><td>{@value #ISSUER_NOT_UUID}</td></tr>
 *   <tr><td>{@code iss} no service it knows</td><td>403</td><td>{@value #UNKNOWN_SERVICE}</td></tr>
 *   <tr><td>{@code alg} other than HS256</td><td>403</td><td>{@value #NOT_HS256}</td></tr>
 *   <tr><td>bad signature (also: signed with another service's secret), or no {@code iat}</td><td>403</td>
 *       <td>{@value #KEY_NOT_FOUND}</td></tr>
 *   <tr><td>{@code iat} more than 30 s from now</td><td>403</td><td>{@value #CLOCK_SKEW}</td></tr>
 * </table>
 *
 * <p>Thread-safe: immutable, a fresh {@link Mac} per check.
 */
final class NotifyJwtVerifier {

    static final long CLOCK_TOLERANCE_SECONDS = 30;

    static final String NO_TOKEN = "Unauthorized: authentication token must be provided";
    static final String NOT_BEARER = "Unauthorized: authentication bearer scheme must be used";
    static final String GENERAL_TOKEN_ERROR = "Invalid token: make sure your API token matches the example at "
            + "https://docs.notifications.service.gov.uk/rest-api.html#authorisation-header";
    static final String NO_ISSUER = "Invalid token: iss field not provided";
    static final String ISSUER_NOT_UUID = "Invalid token: service id is not the right data type";
    static final String UNKNOWN_SERVICE = "Invalid token: service not found";
    static final String NOT_HS256 = "Invalid token: algorithm used is not HS256";
    static final String KEY_NOT_FOUND = "Invalid token: API key not found";
    static final String CLOCK_SKEW = "Error: Your system clock must be accurate to within 30 seconds";

    private static final String HMAC_SHA256 = "HmacSHA256";

    private final Map<UUID, NotifyNlSimulator.Service> services;

    NotifyJwtVerifier(List<NotifyNlSimulator.Service> services) {
        Map<UUID, NotifyNlSimulator.Service> byId = new java.util.LinkedHashMap<>();
        services.forEach(service -> byId.put(UUID.fromString(service.serviceId()), service));
        this.services = Map.copyOf(byId);
    }

    /** The outcome of a check: the service the request acts for, or the error Notify answers. */
    record Checked(NotifyNlSimulator.Service service, NotifyError error) {}

    /**
     * Checks the {@code Authorization} header of one request.
     *
     * @param authorization the header (possibly absent)
     * @param now           the moment the request arrived
     * @return the authenticated service, or the error Notify answers
     */
    Checked check(HttpHeader authorization, Instant now) {
        if (authorization == null
                || !authorization.isPresent()
                || authorization.firstValue().isEmpty()) {
            return deny(401, NO_TOKEN);
        }
        String header = authorization.firstValue();
        if (header.length() < 7 || !titleCase(header.substring(0, 7)).equals("Bearer ")) {
            return deny(401, NOT_BEARER);
        }
        String[] parts = header.substring(7).split("\\.", -1);
        if (parts.length != 3) {
            return deny(403, GENERAL_TOKEN_ERROR);
        }
        Optional<Map<String, Object>> joseHeader = decodeJson(parts[0]);
        Optional<Map<String, Object>> claims = decodeJson(parts[1]);
        Optional<byte[]> signature = decodeBase64Url(parts[2]);
        if (joseHeader.isEmpty() || claims.isEmpty() || signature.isEmpty()) {
            return deny(403, GENERAL_TOKEN_ERROR);
        }

        Object issuer = claims.get().get("iss");
        if (issuer == null) {
            return deny(403, NO_ISSUER);
        }
        Optional<UUID> issuerId = issuer instanceof String text ? NotifyFormats.parseUuid(text) : Optional.empty();
        if (issuerId.isEmpty()) {
            return deny(403, ISSUER_NOT_UUID);
        }
        NotifyNlSimulator.Service service = services.get(issuerId.get());
        if (service == null) {
            return deny(403, UNKNOWN_SERVICE);
        }
        if (!"HS256".equals(joseHeader.get().get("alg"))) {
            return deny(403, NOT_HS256);
        }
        if (!MessageDigest.isEqual(sign(service.secret(), parts[0] + "." + parts[1]), signature.get())) {
            return deny(403, KEY_NOT_FOUND);
        }

        Object issuedAt = claims.get().get("iat");
        if (issuedAt == null) {
            return deny(403, KEY_NOT_FOUND);
        }
        if (!(issuedAt instanceof Number seconds)
                || Math.abs(now.getEpochSecond() - seconds.longValue()) > CLOCK_TOLERANCE_SECONDS) {
            return deny(403, CLOCK_SKEW);
        }
        if (claims.get().containsKey("aud")) {
            return deny(403, GENERAL_TOKEN_ERROR);
        }
        return new Checked(service, null);
    }

    private static byte[] sign(String secret, String signingInput) {
        try {
            Mac mac = Mac.getInstance(HMAC_SHA256);
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), HMAC_SHA256));
            return mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII));
        } catch (GeneralSecurityException impossible) {
            throw new IllegalStateException("HmacSHA256 is part of every JDK", impossible);
        }
    }

    private static Optional<Map<String, Object>> decodeJson(String base64Url) {
        return decodeBase64Url(base64Url)
                .flatMap(bytes -> JsonText.parseObject(new String(bytes, StandardCharsets.UTF_8)));
    }

    private static Optional<byte[]> decodeBase64Url(String text) {
        try {
            return Optional.of(Base64.getUrlDecoder().decode(text));
        } catch (IllegalArgumentException notBase64Url) {
            return Optional.empty();
        }
    }

    /** Python's {@code str.title()} for the seven-character scheme prefix Notify compares. */
    private static String titleCase(String prefix) {
        return Character.toUpperCase(prefix.charAt(0)) + prefix.substring(1).toLowerCase(java.util.Locale.ROOT);
    }

    private static Checked deny(int status, String message) {
        return new Checked(null, NotifyError.of(status, "AuthError", message));
    }
}
