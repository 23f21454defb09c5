package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Collectors;

/**
 * {@code POST /v2/notifications/email} ({@code post_notification} in {@code app/v2/notifications}).
 *
 * <p>Validates the body against Notify's {@code post_email_request} schema and answers every violation at
 * once as a 400 {@code ValidationError} ({@code email_address is a required property},
 * {@code template_id is not a valid UUID}, {@code email_address Not a valid email address}, …); a body that is
 * not JSON gets 400 {@code BadRequestError} {@code Invalid JSON supplied in POST data}; unknown properties are
 * ignored. Otherwise it stores the notification under a fresh random id, answers 201 with Notify's
 * {@link NotifyJson#sendEmailResponse response}, and schedules the outcome chosen by the address
 * ({@link SimulatedRecipient}).
 *
 * <p>Templates belong to services ({@link NotifyNlSimulator.Service#templateIds()}): a template that another
 * service lists, or one the calling service does not list when it lists any, is a 400 {@code BadRequestError}
 * {@value NotifyNlSimulator#TEMPLATE_NOT_FOUND}, as Notify's {@code validate_template} answers a template of
 * another service. Every template is at version 1 and renders as a fixed subject and a body listing the
 * personalisation.
 */
final class SendEmailEndpoint extends NotifyEndpoint {

    static final String SUBJECT = "Bericht van de NotifyNL-simulator";

    SendEmailEndpoint(Simulation simulation) {
        super(simulation, NotifyNlSimulator.SEND_EMAIL_TRANSFORMER, "POST /v2/notifications/email");
    }

    @Override
    ResponseDefinition handle(ServeEvent serveEvent, Request request, Instant now, NotifyNlSimulator.Service service) {
        String text = request.getBodyAsString();
        Optional<Map<String, Object>> parsed =
                text == null || text.isBlank() ? Optional.of(Map.of()) : JsonText.parseObject(text);
        if (parsed.isEmpty()) {
            return error(serveEvent, NotifyError.of(400, "BadRequestError", "Invalid JSON supplied in POST data"));
        }
        Map<String, Object> body = parsed.get();
        List<String> problems = validate(body);
        if (!problems.isEmpty()) {
            return error(serveEvent, NotifyError.validation(problems));
        }

        String emailAddress = (String) body.get("email_address");
        UUID templateId =
                NotifyFormats.parseUuid((String) body.get("template_id")).orElseThrow();
        if (!hasTemplate(service, templateId)) {
            return json(
                    serveEvent,
                    400,
                    NotifyError.of(400, "BadRequestError", NotifyNlSimulator.TEMPLATE_NOT_FOUND)
                            .toJson(),
                    "BadRequestError template_id=" + templateId + " service=" + service.serviceId());
        }
        Map<String, Object> personalisation = personalisation(body.get("personalisation"));
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
                SUBJECT,
                render(personalisation),
                now,
                recipient.reachesProvider() ? now : null,
                recipient == SimulatedRecipient.NEVER_COMPLETES ? Instant.MAX : now.plus(delay),
                recipient,
                recipient.finalStatus());
        simulation.store().add(notification);
        if (recipient.sendsCallback()) {
            simulation.callbacks().schedule(notification, delay.multipliedBy(recipient.callbackDelayFactor()));
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

    /** Whether the service has the template: its own, or (listing none) one no other service lists. */
    private boolean hasTemplate(NotifyNlSimulator.Service service, UUID templateId) {
        if (!service.templateIds().isEmpty()) {
            return service.templateIds().contains(templateId);
        }
        return simulation.config().services().stream()
                .noneMatch(other -> other.templateIds().contains(templateId));
    }

    /** Notify's schema checks, in its message wording (quotes removed, property name first). */
    private static List<String> validate(Map<String, Object> body) {
        List<String> problems = new ArrayList<>();
        if (!body.containsKey("email_address")) {
            problems.add("email_address is a required property");
        }
        if (!body.containsKey("template_id")) {
            problems.add("template_id is a required property");
        }
        if (body.containsKey("email_address")) {
            Object address = body.get("email_address");
            if (!(address instanceof String text)) {
                problems.add("email_address " + pythonRepr(address) + " is not of type string");
            } else if (!EmailAddresses.isValid(text)) {
                problems.add("email_address Not a valid email address");
            }
        }
        requireUuid(body, "template_id", problems);
        requireUuid(body, "email_reply_to_id", problems);
        requireType(body, "reference", String.class, "string", problems);
        requireType(body, "personalisation", Map.class, "object", problems);
        requireType(body, "one_click_unsubscribe_url", String.class, "string", problems);
        return problems;
    }

    private static void requireUuid(Map<String, Object> body, String property, List<String> problems) {
        if (body.containsKey(property)
                && !(body.get(property) instanceof String text
                        && NotifyFormats.parseUuid(text).isPresent())) {
            problems.add(property + " is not a valid UUID");
        }
    }

    private static void requireType(
            Map<String, Object> body, String property, Class<?> type, String schemaType, List<String> problems) {
        if (body.containsKey(property) && !type.isInstance(body.get(property))) {
            problems.add(property + " " + pythonRepr(body.get(property)) + " is not of type " + schemaType);
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> personalisation(Object value) {
        return value == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>((Map<String, Object>) value));
    }

    /** The "rendered template": one {@code key: value} line per personalisation field. */
    private static String render(Map<String, Object> personalisation) {
        if (personalisation.isEmpty()) {
            return "Dit is een gesimuleerd bericht zonder personalisatie.";
        }
        return personalisation.entrySet().stream()
                .map(entry -> entry.getKey() + ": " + entry.getValue())
                .collect(Collectors.joining("\n"));
    }

    /** How Python's jsonschema prints a value in a type error (Notify then strips the quotes). */
    private static String pythonRepr(Object value) {
        return switch (value) {
            case null -> "None";
            case Boolean bool -> bool ? "True" : "False";
            case Map<?, ?> map -> JsonText.write(map).replace("\"", "");
            case List<?> list -> JsonText.write(list).replace("\"", "");
            default -> String.valueOf(value);
        };
    }
}
