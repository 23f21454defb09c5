package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * {@code POST /v2/notifications/email} ({@code post_notification} in {@code app/v2/notifications}), with NotifyNL's
 * checks in NotifyNL's order and its exact answers (server/ARCHITECTURE.md §7.4, "NotifyNL's answers"):
 *
 * <ol>
 *   <li>the authentication ({@link NotifyEndpoint}: 401, 403, an archived service, a revoked key);</li>
 *   <li>the rate limit (429 {@code RateLimitError}, every request counting) and the daily limit (429
 *       {@code TooManyRequestsError}, not for test keys), before the body is read;</li>
 *   <li>the body: not JSON is 400 {@code BadRequestError} "Invalid JSON supplied in POST data"; then Notify's
 *       {@code post_email_request} schema with no other properties allowed, every violation at once as
 *       {@code ValidationError}s in jsonschema's order (the properties, then {@code required}, then
 *       {@code additionalProperties}) and wording ({@code reference … is too long},
 *       {@code one_click_unsubscribe_url is not a valid https url}, …);</li>
 *   <li>the service's e-mail permission, the template (not found, another type, deleted, missing personalisation,
 *       empty), the recipient (a team key or a live key in trial mode: the team only);</li>
 *   <li>the smoke-test addresses: 201, nothing stored or sent.</li>
 * </ol>
 *
 * Otherwise it stores the notification under a fresh id (counted towards the daily limit), answers 201 with
 * Notify's {@link NotifyJson#sendEmailResponse response}, and schedules the outcome the address chooses
 * ({@link SimulatedRecipient}). Templates belong to services ({@link NotifyNlSimulator.Service#templates()}, changed
 * through {@link NotifyNlSimulator.ServiceSetup}); a service that lists none takes any template no other service lists,
 * without placeholders. Every template is at version 1 and renders its body with the placeholders filled.
 */
final class SendEmailEndpoint extends NotifyEndpoint {

    static final String SUBJECT = "Bericht van de NotifyNL-simulator";

    /** jsonschema checks {@code post_email_request}'s properties in this order. */
    private static final List<String> PROPERTIES = List.of(
            "reference",
            "email_address",
            "template_id",
            "personalisation",
            "scheduled_for",
            "email_reply_to_id",
            "one_click_unsubscribe_url");

    private static final int MAX_REFERENCE_LENGTH = 1000;

    SendEmailEndpoint(Simulation simulation) {
        super(simulation, NotifyNlSimulator.SEND_EMAIL_TRANSFORMER, "POST /v2/notifications/email");
    }

    @Override
    ResponseDefinition handle(ServeEvent serveEvent, Request request, Instant now, NotifyNlSimulator.Service service) {
        ServiceState state = simulation.state(service);
        Optional<Integer> rateLimit = state.overRateLimit(now);
        if (rateLimit.isPresent()) {
            return error(
                    serveEvent,
                    NotifyError.of(
                            429,
                            "RateLimitError",
                            "Exceeded rate limit for key type "
                                    + state.keyType().messageName() + " of " + rateLimit.get()
                                    + " requests per 60 seconds"));
        }
        if (state.overDailyLimit(now)) {
            return error(
                    serveEvent,
                    NotifyError.of(
                            429,
                            "TooManyRequestsError",
                            "Exceeded send limits (email: " + state.dailyLimit() + ") for today"));
        }
        JsonText.Parsed parsed = JsonText.parse(request.getBodyAsString());
        if (!parsed.valid()) {
            return error(serveEvent, NotifyError.of(400, "BadRequestError", "Invalid JSON supplied in POST data"));
        }
        Object document = empty(parsed.value()) ? Map.of() : parsed.value();
        if (!(document instanceof Map<?, ?>)) {
            return error(serveEvent, NotifyError.validation(List.of(pythonRepr(document) + " is not of type object")));
        }
        @SuppressWarnings("unchecked")
        Map<String, Object> body = (Map<String, Object>) document;
        List<String> problems = validate(body, now);
        if (!problems.isEmpty()) {
            return error(serveEvent, NotifyError.validation(problems));
        }
        if (!state.emailAllowed()) {
            return refused(serveEvent, NotifyNlSimulator.NO_EMAIL_PERMISSION, service);
        }

        String emailAddress = (String) body.get("email_address");
        UUID templateId =
                NotifyFormats.parseUuid((String) body.get("template_id")).orElseThrow();
        Map<String, Object> personalisation = personalisation(body.get("personalisation"));
        Optional<NotifyNlSimulator.Template> found = template(state, templateId);
        if (found.isEmpty()) {
            return refused(serveEvent, NotifyNlSimulator.TEMPLATE_NOT_FOUND, service);
        }
        NotifyNlSimulator.Template template = found.get();
        if (!template.type().equals("email")) {
            return refused(serveEvent, template.type() + " template is not suitable for email notification", service);
        }
        if (state.templateArchived(templateId)) {
            return refused(serveEvent, NotifyNlSimulator.TEMPLATE_DELETED, service);
        }
        List<String> missing = missing(template, personalisation);
        if (!missing.isEmpty()) {
            return refused(serveEvent, "Missing personalisation: " + String.join(", ", missing), service);
        }
        String rendered = render(template, personalisation);
        if (rendered.isBlank()) {
            return refused(serveEvent, "Your message is empty.", service);
        }
        if (!state.mayReceive(emailAddress)) {
            return refused(
                    serveEvent,
                    state.keyType() == NotifyNlSimulator.KeyType.TEAM
                            ? NotifyNlSimulator.TEAM_KEY
                            : NotifyNlSimulator.TRIAL_MODE,
                    service);
        }

        SimulatedRecipient recipient = SimulatedRecipient.forAddress(emailAddress);
        Duration delay = simulation.config().callbackDelay();
        StoredNotification notification = new StoredNotification(
                simulation.store().nextSequence(),
                UUID.randomUUID(),
                UUID.fromString(service.serviceId()),
                (String) body.get("reference"),
                emailAddress,
                templateId,
                personalisation,
                (String) body.get("one_click_unsubscribe_url"),
                fill(template.subject(), personalisation),
                rendered,
                now,
                recipient.reachesProvider() ? now : null,
                recipient == SimulatedRecipient.NEVER_COMPLETES ? Instant.MAX : now.plus(delay),
                recipient,
                recipient.finalStatus());
        if (NotifyNlSimulator.SMOKE_TEST_ADDRESSES.contains(
                EmailAddresses.normalise(emailAddress).toLowerCase(Locale.ROOT))) {
            // Notify answers a smoke-test address and forgets it: no row, no receipt, not counted.
            return json(
                    serveEvent,
                    201,
                    NotifyJson.sendEmailResponse(notification, urlRoot(request), service.serviceId()),
                    "id=" + notification.id() + " (smoke-test address: not stored)");
        }
        simulation.store().add(notification);
        state.countSend(now);
        if (recipient.sendsCallback()) {
            simulation.callbacks().schedule(notification, delay.multipliedBy(recipient.callbackDelayFactor()));
        }
        if (recipient == SimulatedRecipient.DELIVERED_WITH_COMPLAINT) {
            simulation
                    .callbacks()
                    .scheduleComplaint(notification, UUID.randomUUID(), now.plus(delay), delay.multipliedBy(2));
        }

        String logDetail = "id=" + notification.id() + " service=" + service.serviceId()
                + " reference=" + notification.reference()
                + " status=" + notification.statusAt(now)
                + (recipient.sendsCallback() ? "" : " (simulated send-path failure: technical-failure, no callback)");
        return json(
                serveEvent,
                201,
                NotifyJson.sendEmailResponse(notification, urlRoot(request), service.serviceId()),
                logDetail);
    }

    /** A 400 {@code BadRequestError}; the log names the service, not the message (it may name the recipient). */
    private ResponseDefinition refused(ServeEvent serveEvent, String message, NotifyNlSimulator.Service service) {
        return json(
                serveEvent,
                400,
                NotifyError.of(400, "BadRequestError", message).toJson(),
                "BadRequestError service=" + service.serviceId());
    }

    /**
     * The service's template: its own when it lists any, else one no other service lists (without placeholders).
     */
    private Optional<NotifyNlSimulator.Template> template(ServiceState state, UUID templateId) {
        if (!state.templateIds().isEmpty()) {
            return state.template(templateId);
        }
        boolean elsewhere = simulation.states().values().stream()
                .filter(other -> other != state)
                .anyMatch(other -> other.templateIds().contains(templateId));
        return elsewhere ? Optional.empty() : Optional.of(NotifyNlSimulator.Template.email(templateId));
    }

    /** NotifyNL's {@code missing_data}: placeholders without a value (null counts as none), matched insensitively. */
    private static List<String> missing(NotifyNlSimulator.Template template, Map<String, Object> personalisation) {
        Map<String, Object> values = insensitive(personalisation);
        return template.placeholders().stream()
                .filter(placeholder -> values.get(key(placeholder)) == null)
                .toList();
    }

    /** The body with every placeholder filled; a template without any lists the personalisation it was sent. */
    private static String render(NotifyNlSimulator.Template template, Map<String, Object> personalisation) {
        String body = fill(template.body(), personalisation);
        if (!template.placeholders().isEmpty()) {
            return body;
        }
        if (personalisation.isEmpty()) {
            return body.isBlank() ? "Dit is een gesimuleerd bericht zonder personalisatie." : body;
        }
        return personalisation.entrySet().stream()
                .map(entry -> entry.getKey() + ": " + entry.getValue())
                .collect(Collectors.joining("\n"));
    }

    private static String fill(String text, Map<String, Object> personalisation) {
        if (text == null) {
            return null;
        }
        Map<String, Object> values = insensitive(personalisation);
        java.util.regex.Matcher matcher =
                java.util.regex.Pattern.compile("\\(\\(([^()]+)\\)\\)").matcher(text);
        StringBuilder out = new StringBuilder();
        while (matcher.find()) {
            String name = matcher.group(1);
            int conditional = name.indexOf("??");
            Object value = values.get(key(conditional < 0 ? name : name.substring(0, conditional)));
            String replacement =
                    conditional < 0 ? String.valueOf(value) : isTruthy(value) ? name.substring(conditional + 2) : "";
            matcher.appendReplacement(out, java.util.regex.Matcher.quoteReplacement(replacement));
        }
        matcher.appendTail(out);
        return out.toString();
    }

    private static boolean isTruthy(Object value) {
        return value != null && !Boolean.FALSE.equals(value) && !"".equals(value);
    }

    private static Map<String, Object> insensitive(Map<String, Object> personalisation) {
        Map<String, Object> values = new java.util.HashMap<>();
        personalisation.forEach((name, value) -> values.put(key(name), value));
        return values;
    }

    /** notifications-utils' {@code InsensitiveDict.make_key}: no spaces, underscores or hyphens, lower case. */
    private static String key(String name) {
        return name.replace(" ", "").replace("_", "").replace("-", "").toLowerCase(Locale.ROOT);
    }

    /** {@code request_json or {}}: a JSON null, an empty object or an empty array is no body at all. */
    private static boolean empty(Object value) {
        return value == null
                || value instanceof Map<?, ?> map && map.isEmpty()
                || value instanceof List<?> list && list.isEmpty();
    }

    /** Notify's schema checks, in jsonschema's order and Notify's wording (quotes removed, property name first). */
    private static List<String> validate(Map<String, Object> body, Instant now) {
        Set<String> problems = new LinkedHashSet<>(); // Notify's unique_errors, in order
        for (String property : PROPERTIES) {
            if (body.containsKey(property)) {
                check(property, body.get(property), now).ifPresent(problems::add);
            }
        }
        for (String required : List.of("email_address", "template_id")) {
            if (!body.containsKey(required)) {
                problems.add(required + " is a required property");
            }
        }
        TreeSet<String> extra = new TreeSet<>(body.keySet());
        extra.removeAll(PROPERTIES);
        if (!extra.isEmpty()) {
            problems.add(NotifyError.unexpected(extra));
        }
        return List.copyOf(problems);
    }

    private static Optional<String> check(String property, Object value, Instant now) {
        return switch (property) {
            case "reference" -> {
                if (!(value instanceof String text)) {
                    yield Optional.of("reference " + pythonRepr(value) + " is not of type string");
                }
                yield text.codePointCount(0, text.length()) > MAX_REFERENCE_LENGTH
                        ? Optional.of("reference " + text + " is too long")
                        : Optional.empty();
            }
            case "email_address" -> {
                if (!(value instanceof String text)) {
                    yield Optional.of("email_address " + pythonRepr(value) + " is not of type string");
                }
                yield EmailAddresses.isValid(text)
                        ? Optional.empty()
                        : Optional.of("email_address Not a valid email address");
            }
            case "template_id", "email_reply_to_id" ->
                value instanceof String text && NotifyFormats.parseUuid(text).isPresent()
                        ? Optional.empty()
                        : Optional.of(property + " is not a valid UUID");
            case "personalisation" ->
                value instanceof Map<?, ?>
                        ? Optional.empty()
                        : Optional.of("personalisation " + pythonRepr(value) + " is not of type object");
            case "scheduled_for" -> scheduledFor(value, now);
            case "one_click_unsubscribe_url" ->
                value instanceof String text && httpsUri(text)
                        ? Optional.empty()
                        : Optional.of("one_click_unsubscribe_url is not a valid https url");
            default -> Optional.empty();
        };
    }

    /** {@code {"type": ["string", "null"], "format": "datetime_within_next_day"}}; accepted, and then ignored. */
    private static Optional<String> scheduledFor(Object value, Instant now) {
        if (value == null) {
            return Optional.empty();
        }
        if (!(value instanceof String text)) {
            return Optional.of("scheduled_for " + pythonRepr(value) + " is not of type string, null");
        }
        Instant at;
        try {
            at = OffsetDateTime.parse(text).toInstant();
        } catch (DateTimeParseException notIso) {
            try {
                at = java.time.LocalDateTime.parse(text).toInstant(java.time.ZoneOffset.UTC);
            } catch (DateTimeParseException notLocal) {
                return Optional.of("scheduled_for datetime format is invalid. It must be a valid ISO8601 date time"
                        + " format, https://en.wikipedia.org/wiki/ISO_8601");
            }
        }
        if (at.isBefore(now)) {
            return Optional.of("scheduled_for datetime can not be in the past");
        }
        if (at.isAfter(now.plus(Duration.ofHours(24)))) {
            return Optional.of("scheduled_for datetime can only be 24 hours in the future");
        }
        return Optional.empty();
    }

    /** {@code https_url}: a URI ({@code format: uri}) that starts with {@code https}. */
    private static boolean httpsUri(String text) {
        if (!text.startsWith("https")) {
            return false;
        }
        try {
            return new URI(text).getScheme() != null;
        } catch (URISyntaxException notUri) {
            return false;
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> personalisation(Object value) {
        return value == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>((Map<String, Object>) value));
    }

    /** How Python's jsonschema prints a value in a type error (Notify then strips the quotes). */
    static String pythonRepr(Object value) {
        return switch (value) {
            case null -> "None";
            case Boolean bool -> bool ? "True" : "False";
            case Map<?, ?> map -> JsonText.write(map).replace("\"", "");
            case List<?> list -> JsonText.write(list).replace("\"", "");
            default -> String.valueOf(value);
        };
    }
}
