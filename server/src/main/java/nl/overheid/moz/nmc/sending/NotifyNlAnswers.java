package nl.overheid.moz.nmc.sending;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * Every answer of NotifyNL classified, by HTTP status, {@code errors[].error} and, where NotifyNL gives nothing
 * else, the start of {@code errors[].message} (ARCHITECTURE §7.4, "NotifyNL's answers"; the sources are named in
 * {@code api-spec/notifynl.yaml}). Pure, so the whole table is tested without a server ({@code NotifyNlAnswersTest}).
 * NotifyNL's messages may quote the request (a schema error quotes the offending value): nothing here returns or
 * logs one, only the class it falls in.
 *
 * <p>The one refusal that is the recipient's is NotifyNL's check of the address ({@code ValidationError}
 * "email_address Not a valid email address", {@code InvalidEmailError}). Every other 400, and a 403 or 401 from
 * NotifyNL's authentication, is a {@link SetupError}, including a 400 the NMC does not recognise: a refusal
 * nobody understands must never end a notification {@code niet-bezorgbaar}.
 */
public final class NotifyNlAnswers {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** The message of NotifyNL's e-mail address check, with the field name its schema validation puts in front. */
    static final String ADDRESS_INVALID = "email_address Not a valid email address";

    private NotifyNlAnswers() {}

    /** One entry of NotifyNL's {@code errors}. */
    record Error(String error, String message) {}

    /** The outcome of a send answered with {@code status} and {@code body}. */
    public static NotifyNl.SendResult send(int status, String body) {
        List<Error> errors = errors(body);
        if (status == 201) {
            return id(read(body).path("id"))
                    .<NotifyNl.SendResult>map(NotifyNl.SendResult.Accepted::new)
                    // A 201 we cannot read still means NotifyNL has it: the attempt is looked up by reference.
                    .orElse(new NotifyNl.SendResult.Unavailable("contract", true));
        }
        if (status == 400) {
            return refusal(errors);
        }
        if (status == 401) {
            return new NotifyNl.SendResult.SetupFailure(SetupError.KEY_INVALID);
        }
        if (status == 403) {
            return authentication(errors)
                    .<NotifyNl.SendResult>map(NotifyNl.SendResult.SetupFailure::new)
                    .orElseGet(() -> new NotifyNl.SendResult.Unavailable(
                            clockSkew(errors) ? "notifynl-klok" : "http-403", false));
        }
        if (status == 429) {
            if (dailyLimit(errors)) {
                return new NotifyNl.SendResult.DailyLimit();
            }
            // RateLimitError (per service and key type, a sliding minute) or a 429 of something in front: backoff.
            return new NotifyNl.SendResult.Unavailable("http-429", false);
        }
        // 5xx (also NotifyNL's EventletTimeout 504) may have been accepted first, and so may another 2xx (NotifyNL
        // answers 201; something in front of it might not); a 404 is a wrong address of NotifyNL.
        return new NotifyNl.SendResult.Unavailable("http-" + status, status >= 500 || status >= 200 && status < 300);
    }

    /**
     * The outcome of a status query that did not answer 200: only NotifyNL's own 404 ({@code NoResultFound}) says it
     * does not know the notification; a 404 of another shape (a wrong URL, a proxy's page) is the call failing, so a
     * misrouted call can never end a notification {@code bezorgstatus-onbekend}.
     */
    public static NotifyNl.Lookup lookupFailure(int status, String body) {
        List<Error> errors = errors(body);
        if (status == 404 && notFound(errors)) {
            return new NotifyNl.Lookup.NotFound();
        }
        Optional<SetupError> setup = status == 403 ? authentication(errors) : Optional.empty();
        return new NotifyNl.Lookup.Unavailable(setup.map(SetupError::errorClass).orElse("http-" + status));
    }

    /** The outcome of a template lookup that did not answer 200 (see {@link #lookupFailure}). */
    public static NotifyNl.TemplateLookup templateFailure(int status, String body) {
        List<Error> errors = errors(body);
        if (status == 404 && notFound(errors)) {
            return new NotifyNl.TemplateLookup.NotFound();
        }
        Optional<SetupError> setup = status == 403 ? authentication(errors) : Optional.empty();
        return new NotifyNl.TemplateLookup.Unavailable(
                setup.map(SetupError::errorClass).orElse("http-" + status));
    }

    /** A template's placeholders: the keys of its {@code personalisation}, in NotifyNL's order. */
    public static NotifyNl.TemplateLookup template(String body) {
        JsonNode template = read(body);
        JsonNode personalisation = template.path("personalisation");
        if (!personalisation.isObject()) {
            return new NotifyNl.TemplateLookup.Unavailable("contract");
        }
        List<String> placeholders = new ArrayList<>();
        personalisation.fieldNames().forEachRemaining(placeholders::add);
        return new NotifyNl.TemplateLookup.Found(
                List.copyOf(placeholders), template.path("version").asInt(0));
    }

    private static NotifyNl.SendResult refusal(List<Error> errors) {
        for (Error e : errors) {
            if (("ValidationError".equals(e.error()) && ADDRESS_INVALID.equals(e.message()))
                    || "InvalidEmailError".equals(e.error())) {
                return new NotifyNl.SendResult.Rejected("email_address");
            }
        }
        SetupError setup = SetupError.UNKNOWN_REFUSAL;
        if (!errors.isEmpty()) {
            Error first = errors.getFirst();
            String message = apostrophes(first.message());
            if ("ValidationError".equals(first.error())) {
                setup = SetupError.REQUEST_INVALID;
            } else if ("BadRequestError".equals(first.error())) {
                setup = badRequest(message);
            }
        }
        return new NotifyNl.SendResult.SetupFailure(setup);
    }

    /** A {@code BadRequestError} by the start of its message (NotifyNL's only distinction between them). */
    private static SetupError badRequest(String message) {
        if (message.equals("Template not found")) {
            return SetupError.TEMPLATE_NOT_FOUND;
        }
        if (message.equals("Template has been deleted")) {
            return SetupError.TEMPLATE_DELETED;
        }
        if (message.endsWith(" template is not suitable for email notification")) {
            return SetupError.TEMPLATE_NOT_EMAIL;
        }
        if (message.startsWith("Missing personalisation: ")) {
            return SetupError.PERSONALISATION_MISSING;
        }
        if (message.equals("Your message is empty.") || message.startsWith("Your message is too long.")) {
            return SetupError.CONTENT_INVALID;
        }
        // GOV.UK's wording (NotifyNL keeps it), and the "Cannot send …" of NotifyNL's documentation
        if (message.startsWith("Can't send to this recipient when service is in trial mode")
                || message.startsWith("Cannot send to this recipient when service is in trial mode")) {
            return SetupError.TRIAL_MODE;
        }
        if (message.startsWith("Can't send to this recipient using a team-only API key")
                || message.startsWith("Cannot send to this recipient using a team-only API key")) {
            return SetupError.TEAM_KEY;
        }
        if (message.equals("Service is not allowed to send emails")) {
            return SetupError.NO_EMAIL_PERMISSION;
        }
        if (message.equals("Invalid JSON supplied in POST data") || message.startsWith("email_reply_to_id ")) {
            return SetupError.REQUEST_INVALID;
        }
        return SetupError.UNKNOWN_REFUSAL;
    }

    /** A 403 of NotifyNL's authentication about the key or the service (not the clock). */
    private static Optional<SetupError> authentication(List<Error> errors) {
        if (errors.isEmpty() || !"AuthError".equals(errors.getFirst().error())) {
            return Optional.empty();
        }
        String message = errors.getFirst().message();
        if (message.equals("Invalid token: API key revoked")) {
            return Optional.of(SetupError.KEY_REVOKED);
        }
        if (message.equals("Invalid token: service is archived")) {
            return Optional.of(SetupError.SERVICE_ARCHIVED);
        }
        if (message.startsWith("Invalid token: ")) {
            return Optional.of(SetupError.KEY_INVALID);
        }
        return Optional.empty();
    }

    /** 403 "Error: Your system clock must be accurate to within 30 seconds": the NMC's clock, not its key. */
    private static boolean clockSkew(List<Error> errors) {
        return !errors.isEmpty()
                && "AuthError".equals(errors.getFirst().error())
                && errors.getFirst().message().startsWith("Error: Your system clock");
    }

    /** 429 {@code TooManyRequestsError} "Exceeded send limits (email: N) for today", not the per-minute RateLimitError. */
    private static boolean dailyLimit(List<Error> errors) {
        return !errors.isEmpty()
                && ("TooManyRequestsError".equals(errors.getFirst().error())
                                && !errors.getFirst().message().startsWith("Exceeded rate limit")
                        || errors.getFirst().message().startsWith("Exceeded send limits"));
    }

    private static boolean notFound(List<Error> errors) {
        return !errors.isEmpty() && "NoResultFound".equals(errors.getFirst().error());
    }

    /** NotifyNL's {@code errors}, in order; empty when the body is not NotifyNL's v2 error shape. */
    static List<Error> errors(String body) {
        List<Error> errors = new ArrayList<>();
        for (JsonNode entry : read(body).path("errors")) {
            if (entry.isObject()) {
                errors.add(new Error(
                        entry.path("error").asText(""), entry.path("message").asText("")));
            }
        }
        return errors;
    }

    private static JsonNode read(String body) {
        try {
            JsonNode tree = body == null || body.isBlank() ? null : MAPPER.readTree(body);
            return tree == null ? MAPPER.missingNode() : tree;
        } catch (IOException notJson) {
            return MAPPER.missingNode();
        }
    }

    /** NotifyNL writes U+2019 in "Can’t"; its documentation and older versions an ASCII apostrophe. */
    private static String apostrophes(String message) {
        return message.replace('\u2019', '\'');
    }

    static Optional<UUID> id(JsonNode node) {
        try {
            return node.isTextual() ? Optional.of(UUID.fromString(node.asText())) : Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
