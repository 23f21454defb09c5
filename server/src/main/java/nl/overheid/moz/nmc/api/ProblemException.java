package nl.overheid.moz.nmc.api;

import java.net.URI;
import java.util.List;
import java.util.Map;

/**
 * A request that ends in an RFC 9457 problem. Thrown anywhere in request handling and turned into an
 * {@code application/problem+json} response by {@link ProblemResponses}. Details and errors never echo
 * request values, so they never carry personal data.
 */
public final class ProblemException extends RuntimeException {

    /** Problem type URIs of the NMC's own problems. */
    public static final URI TYPE_INVALID = URI.create("https://nmc.moza.overheid.nl/problemen/ongeldige-invoer");

    public static final URI TYPE_UNAUTHORIZED =
            URI.create("https://nmc.moza.overheid.nl/problemen/niet-geauthenticeerd");
    public static final URI TYPE_FORBIDDEN = URI.create("https://nmc.moza.overheid.nl/problemen/geen-toegang");
    public static final URI TYPE_NOT_FOUND = URI.create("https://nmc.moza.overheid.nl/problemen/niet-gevonden");
    public static final URI TYPE_CONFLICT = URI.create("https://nmc.moza.overheid.nl/problemen/conflict");
    public static final URI TYPE_NOT_CANCELLABLE =
            URI.create("https://nmc.moza.overheid.nl/problemen/niet-annuleerbaar");
    /** The 410s of the feed, one per reason the DV restarts without a cursor. */
    public static final URI TYPE_CURSOR_EXPIRED = URI.create("https://nmc.moza.overheid.nl/problemen/cursor-verlopen");

    public static final URI TYPE_CURSOR_NOT_RECOGNISED =
            URI.create("https://nmc.moza.overheid.nl/problemen/cursor-niet-herkend");
    public static final URI TYPE_CURSOR_OTHER_EPOCH =
            URI.create("https://nmc.moza.overheid.nl/problemen/cursor-andere-epoch");
    public static final URI TYPE_CURSOR_PARTITION_DROPPED =
            URI.create("https://nmc.moza.overheid.nl/problemen/cursor-partitie-verwijderd");
    public static final URI TYPE_CURSOR_EVENT_UNKNOWN =
            URI.create("https://nmc.moza.overheid.nl/problemen/cursor-event-onbekend");
    public static final URI TYPE_QUOTA = URI.create("https://nmc.moza.overheid.nl/problemen/quotum-overschreden");
    public static final URI TYPE_RATE_LIMITED =
            URI.create("https://nmc.moza.overheid.nl/problemen/aanroeplimiet-overschreden");
    public static final URI TYPE_NO_WEBHOOK = URI.create("https://nmc.moza.overheid.nl/problemen/geen-webhook");
    public static final URI TYPE_METHOD_NOT_ALLOWED =
            URI.create("https://nmc.moza.overheid.nl/problemen/methode-niet-toegestaan");
    public static final URI TYPE_TOO_LARGE = URI.create("https://nmc.moza.overheid.nl/problemen/verzoek-te-groot");
    public static final URI TYPE_UNSUPPORTED_MEDIA_TYPE =
            URI.create("https://nmc.moza.overheid.nl/problemen/mediatype-niet-ondersteund");
    /** Any other refusal by the HTTP layer itself (a malformed request line or header, …). */
    public static final URI TYPE_UNAVAILABLE =
            URI.create("https://nmc.moza.overheid.nl/problemen/tijdelijk-niet-beschikbaar");

    public static final URI TYPE_BLANK = URI.create("about:blank");

    private final int status;
    private final URI type;
    private final String title;
    private final String detail;
    private final List<FieldError> errors;
    private final Map<String, String> headers;

    /** One invalid field or parameter: a JSON pointer or parameter name, a constraint code and a reason. */
    public record FieldError(String name, String code, String reason) {}

    public ProblemException(
            int status, URI type, String title, String detail, List<FieldError> errors, Map<String, String> headers) {
        super(title + ": " + detail, null, false, false);
        this.status = status;
        this.type = type;
        this.title = title;
        this.detail = detail;
        this.errors = List.copyOf(errors);
        this.headers = Map.copyOf(headers);
    }

    /** The same problem about a part of a larger body: each error's name under {@code pointer}. */
    public ProblemException under(String pointer) {
        return new ProblemException(
                status,
                type,
                title,
                detail,
                errors.stream()
                        .map(error ->
                                new FieldError(JsonPointers.under(pointer, error.name()), error.code(), error.reason()))
                        .toList(),
                headers);
    }

    public static ProblemException invalid(List<FieldError> errors) {
        return invalid(errors, Map.of());
    }

    private static ProblemException invalid(List<FieldError> errors, Map<String, String> headers) {
        return new ProblemException(
                400,
                TYPE_INVALID,
                "Ongeldige invoer.",
                "Het verzoek bevat " + errors.size() + " fout(en); zie errors.",
                errors,
                headers);
    }

    /**
     * A body whose framing is broken (it ends before its Content-Length or its last chunk, or a chunk line is no
     * chunk line): the rest of the connection's bytes cannot be read as requests, so the answer closes it.
     */
    public static ProblemException framing() {
        return invalid(
                List.of(new FieldError(
                        "/", "framing", "De inhoud eindigt niet waar Content-Length of de chunks zeggen.")),
                Map.of("Connection", "close"));
    }

    public static ProblemException invalid(String name, String code, String reason) {
        return invalid(List.of(new FieldError(name, code, reason)));
    }

    public static ProblemException unauthorized(String detail) {
        return new ProblemException(
                401,
                TYPE_UNAUTHORIZED,
                "Niet geauthenticeerd.",
                detail,
                List.of(),
                Map.of("WWW-Authenticate", "Bearer"));
    }

    /** Authenticated, but not allowed (an operator token without the operator role). */
    public static ProblemException forbidden(String detail) {
        return new ProblemException(403, TYPE_FORBIDDEN, "Geen toegang.", detail, List.of(), Map.of());
    }

    public static ProblemException notFound() {
        return new ProblemException(
                404, TYPE_NOT_FOUND, "Niet gevonden.", "De gevraagde bron bestaat niet.", List.of(), Map.of());
    }

    /** The path exists with other methods; {@code allow} is the value of the {@code Allow} header. */
    public static ProblemException methodNotAllowed(String allow) {
        return new ProblemException(
                405,
                TYPE_METHOD_NOT_ALLOWED,
                "Methode niet toegestaan.",
                "Deze bron ondersteunt alleen " + allow + ".",
                List.of(),
                Map.of("Allow", allow));
    }

    /** The body is larger than the NMC accepts ({@code maxBytes}). */
    public static ProblemException tooLarge(long maxBytes) {
        return new ProblemException(
                413,
                TYPE_TOO_LARGE,
                "Verzoek te groot.",
                "Het verzoek is groter dan " + maxBytes + " bytes.",
                List.of(),
                Map.of());
    }

    /** The body is not {@code application/json}. */
    public static ProblemException unsupportedMediaType() {
        return new ProblemException(
                415,
                TYPE_UNSUPPORTED_MEDIA_TYPE,
                "Mediatype niet ondersteund.",
                "Het verzoek moet application/json (UTF-8) zijn.",
                List.of(),
                Map.of());
    }

    /**
     * A status the HTTP layer chose (Helidon refused the request before or outside a handler). The detail is
     * fixed: Helidon's own message may quote the request.
     */
    public static ProblemException ofStatus(int status, String reasonPhrase) {
        return switch (status) {
            case 404 -> notFound();
            case 413 ->
                new ProblemException(
                        413,
                        TYPE_TOO_LARGE,
                        "Verzoek te groot.",
                        "Het verzoek is groter dan het NMC aanneemt.",
                        List.of(),
                        Map.of());
            case 415 -> unsupportedMediaType();
            // the client's choice of protocol (e.g. HTTP/1.0), answered as HTTP says, not a fault of the NMC
            case 505 ->
                new ProblemException(
                        505,
                        TYPE_BLANK,
                        "HTTP-versie niet ondersteund.",
                        "Het NMC spreekt HTTP/1.1.",
                        List.of(),
                        Map.of());
            default ->
                new ProblemException(
                        status,
                        TYPE_BLANK,
                        reasonPhrase + ".",
                        status >= 500 ? "Er ging iets mis in het NMC." : "Het verzoek kon niet worden verwerkt.",
                        List.of(),
                        Map.of());
        };
    }

    /** A cancel that came too late (the DV API's own 409, apart from the operator API's generic conflict). */
    public static ProblemException notCancellable(String detail) {
        return new ProblemException(
                409,
                TYPE_NOT_CANCELLABLE,
                "De notificatie kan niet meer worden geannuleerd.",
                detail,
                List.of(),
                Map.of());
    }

    public static ProblemException conflict(String detail) {
        return new ProblemException(409, TYPE_CONFLICT, "Conflict.", detail, List.of(), Map.of());
    }

    /** A cursor whose position is gone (410): the DV restarts without a cursor. */
    public static ProblemException cursorGone(URI type, String title, String detail) {
        return new ProblemException(410, type, title, detail, List.of(), Map.of());
    }

    public static ProblemException quota(long retryAfterSeconds) {
        return new ProblemException(
                429,
                TYPE_QUOTA,
                "Quotum overschreden.",
                "Het quotum van deze dienstverlener is bereikt; probeer het over " + retryAfterSeconds
                        + " seconden opnieuw.",
                List.of(),
                Map.of("Retry-After", Long.toString(retryAfterSeconds)));
    }

    /** The database cannot be reached: nothing was changed, the same request may be sent again later. */
    public static ProblemException unavailable(long retryAfterSeconds) {
        return unavailable(
                retryAfterSeconds,
                "Het NMC kan zijn database nu niet bereiken; er is niets gewijzigd. Probeer het over "
                        + retryAfterSeconds + " seconden opnieuw.");
    }

    /**
     * An item of a bulk call that met an unreachable database after earlier items of the call were accepted: those
     * stay accepted, this one may not be; sent again it is stored, or answered with its notification as a repeat.
     */
    public static ProblemException unavailableItem(long retryAfterSeconds) {
        return unavailable(
                retryAfterSeconds,
                "Het NMC kon zijn database niet bereiken toen dit item aan de beurt was; de items met een resultaat"
                        + " 202 zijn aangenomen. Stuur dit item over " + retryAfterSeconds + " seconden opnieuw:"
                        + " een herhaling krijgt dezelfde notificatie.");
    }

    private static ProblemException unavailable(long retryAfterSeconds, String detail) {
        return new ProblemException(
                503,
                TYPE_UNAVAILABLE,
                "Tijdelijk niet beschikbaar.",
                detail,
                List.of(),
                Map.of("Retry-After", Long.toString(retryAfterSeconds)));
    }

    /** The per-DV limit of feed calls per second is reached. */
    public static ProblemException rateLimited(long retryAfterSeconds) {
        return new ProblemException(
                429,
                TYPE_RATE_LIMITED,
                "Aanroeplimiet overschreden.",
                "Deze dienstverlener doet te veel aanroepen per seconde; probeer het over " + retryAfterSeconds
                        + " seconde(n) opnieuw.",
                List.of(),
                Map.of("Retry-After", Long.toString(retryAfterSeconds)));
    }

    /**
     * Too many calls at once: of this DV ({@code dvOwn}), or of all DVs on this instance. Answered before the body is
     * read; a second later a slot is likely free.
     */
    public static ProblemException tooManyConcurrent(boolean dvOwn) {
        return new ProblemException(
                429,
                TYPE_RATE_LIMITED,
                "Aanroeplimiet overschreden.",
                dvOwn
                        ? "Deze dienstverlener heeft te veel verzoeken tegelijk lopen; probeer het over 1 seconde opnieuw."
                        : "Het NMC verwerkt nu te veel verzoeken tegelijk; probeer het over 1 seconde opnieuw.",
                List.of(),
                Map.of("Retry-After", "1"));
    }

    /** The caller has no registered webhook. */
    public static ProblemException noWebhook() {
        return new ProblemException(
                404,
                TYPE_NO_WEBHOOK,
                "Geen webhook.",
                "Voor deze dienstverlener is geen webhook geregistreerd.",
                List.of(),
                Map.of());
    }

    public int status() {
        return status;
    }

    public URI type() {
        return type;
    }

    public String title() {
        return title;
    }

    public String detail() {
        return detail;
    }

    public List<FieldError> errors() {
        return errors;
    }

    public Map<String, String> headers() {
        return headers;
    }
}
