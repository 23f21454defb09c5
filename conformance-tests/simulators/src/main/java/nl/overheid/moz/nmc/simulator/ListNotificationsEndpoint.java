package nl.overheid.moz.nmc.simulator;

import com.github.tomakehurst.wiremock.http.Request;
import com.github.tomakehurst.wiremock.http.ResponseDefinition;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.StringJoiner;
import java.util.UUID;
import java.util.function.Predicate;

/**
 * {@code GET /v2/notifications} ({@code get_notifications}): the service's notifications, newest first, in
 * pages of at most 250 ({@code API_PAGE_SIZE}).
 *
 * <p>Filters, all optional: {@code template_type} (repeatable; {@code sms}, {@code email}, {@code letter}),
 * {@code status} (repeatable; {@code failed} means any of the three failures, {@code accepted} means
 * {@code created} or {@code sending}, {@code received} means {@code delivered}, as in Notify's
 * {@code substitute_status}), {@code reference} (exact), {@code older_than} (a notification id: only
 * notifications created before it; none when the id is unknown), {@code include_jobs} (ignored).
 * An invalid value, or a parameter the schema does not name, is a 400 {@code ValidationError} with Notify's message.
 *
 * <p>The answer is {@code {"notifications":[…],"links":{"current":"…","next":"…"}}}. As in Notify, {@code next}
 * (the same query with {@code older_than} = the last id on the page) is present whenever the page is not
 * empty, even when no further notifications exist; a client pages until it gets an empty page.
 */
final class ListNotificationsEndpoint extends NotifyEndpoint {

    static final List<String> TEMPLATE_TYPES = List.of("sms", "email", "letter");

    /** The query's properties in Notify's {@code get_notifications_request} ({@code additionalProperties: false}). */
    static final Set<String> PARAMETERS = Set.of("template_type", "status", "reference", "older_than", "include_jobs");

    /** Notify's {@code NOTIFICATION_STATUS_TYPES} plus the letter statuses, in the order its message lists them. */
    static final List<String> STATUSES = List.of(
            "cancelled",
            "created",
            "sending",
            "sent",
            "delivered",
            "pending",
            "failed",
            "technical-failure",
            "temporary-failure",
            "permanent-failure",
            "pending-virus-check",
            "validation-failed",
            "virus-scan-failed",
            "returned-letter",
            "accepted",
            "received");

    ListNotificationsEndpoint(Simulation simulation) {
        super(simulation, NotifyNlSimulator.LIST_NOTIFICATIONS_TRANSFORMER, "GET /v2/notifications");
    }

    @Override
    ResponseDefinition handle(ServeEvent serveEvent, Request request, Instant now, NotifyNlSimulator.Service service) {
        Map<String, List<String>> query = query(request);
        List<String> problems = new ArrayList<>();
        List<String> templateTypes = query.getOrDefault("template_type", List.of());
        List<String> statuses = query.getOrDefault("status", List.of());
        String reference = first(query, "reference");
        String olderThanText = first(query, "older_than");
        Set<String> unexpected = new HashSet<>(query.keySet());
        unexpected.removeAll(PARAMETERS);
        if (!unexpected.isEmpty()) {
            problems.add(NotifyError.unexpected(unexpected));
        }
        for (String type : templateTypes) {
            if (!TEMPLATE_TYPES.contains(type)) {
                problems.add("template_type " + type + " is not one of [" + String.join(", ", TEMPLATE_TYPES) + "]");
            }
        }
        for (String status : statuses) {
            if (!STATUSES.contains(status)) {
                problems.add("status " + status + " is not one of [" + String.join(", ", STATUSES) + "]");
            }
        }
        Optional<UUID> olderThan = olderThanText == null ? Optional.empty() : NotifyFormats.parseUuid(olderThanText);
        if (olderThanText != null && olderThan.isEmpty()) {
            problems.add("older_than is not a valid UUID");
        }
        if (!problems.isEmpty()) {
            return error(serveEvent, NotifyError.validation(problems));
        }

        Set<String> wantedStatuses = substitute(statuses);
        Predicate<StoredNotification> filter =
                notification -> notification.serviceId().toString().equals(service.serviceId())
                        && (templateTypes.isEmpty() || templateTypes.contains("email"))
                        && (wantedStatuses.isEmpty() || wantedStatuses.contains(notification.statusAt(now)))
                        && (reference == null || reference.equals(notification.reference()));
        List<StoredNotification> page = simulation
                .store()
                .page(filter, olderThan.orElse(null), simulation.config().pageSize());

        String root = urlRoot(request);
        Map<String, Object> links = JsonText.object("current", link(root, query, null));
        if (!page.isEmpty()) {
            links.put("next", link(root, query, page.getLast().id()));
        }
        String body = JsonText.writeFlask(JsonText.object(
                "notifications",
                page.stream()
                        .map(notification -> NotifyJson.notification(notification, root, now))
                        .toList(),
                "links",
                links));
        return json(
                serveEvent,
                200,
                body,
                (reference == null ? "" : "reference=" + reference + " ") + "count=" + page.size());
    }

    private static String first(Map<String, List<String>> query, String key) {
        List<String> values = query.get(key);
        return values == null || values.isEmpty() ? null : values.getFirst();
    }

    private static Set<String> substitute(List<String> statuses) {
        Set<String> wanted = new HashSet<>();
        for (String status : statuses) {
            switch (status) {
                case "failed" ->
                    wanted.addAll(List.of(
                            "technical-failure",
                            "temporary-failure",
                            "permanent-failure",
                            "validation-failed",
                            "virus-scan-failed"));
                case "accepted" -> wanted.addAll(List.of("created", "sending"));
                case "received" -> wanted.add("delivered");
                default -> wanted.add(status);
            }
        }
        return wanted;
    }

    /** The request's own query (single-valued keys once, as Notify validates them), optionally paged on. */
    private static String link(String root, Map<String, List<String>> query, UUID olderThan) {
        Map<String, List<String>> parameters = new LinkedHashMap<>();
        query.forEach((key, values) -> parameters.put(
                key, key.equals("reference") || key.equals("older_than") ? List.of(values.getFirst()) : values));
        if (olderThan != null) {
            parameters.put("older_than", List.of(olderThan.toString()));
        }
        StringJoiner joined = new StringJoiner("&", "?", "").setEmptyValue("");
        parameters.forEach((key, values) ->
                values.forEach(value -> joined.add(URLEncoder.encode(key, StandardCharsets.UTF_8) + "="
                        + URLEncoder.encode(value, StandardCharsets.UTF_8))));
        return root + "/v2/notifications" + joined;
    }
}
