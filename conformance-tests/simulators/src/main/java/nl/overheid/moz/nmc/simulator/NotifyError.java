package nl.overheid.moz.nmc.simulator;

import java.util.List;

/**
 * One error answer of Notify's v2 API:
 * {@code {"errors":[{"error":"<name>","message":"<text>"}, …],"status_code":<http status>}}.
 * Notify lists every schema violation of a request, so a validation error may carry several messages.
 *
 * @param statusCode the HTTP status, repeated in the body as {@code status_code}
 * @param error      Notify's error name: {@code AuthError}, {@code ValidationError}, {@code BadRequestError},
 *                   {@code NoResultFound}, {@code RateLimitError}, {@code TooManyRequestsError}, {@code Exception}
 * @param messages   at least one message
 */
record NotifyError(int statusCode, String error, List<String> messages) {

    NotifyError {
        messages = List.copyOf(messages);
        if (messages.isEmpty()) {
            throw new IllegalArgumentException("an error needs a message");
        }
    }

    static NotifyError of(int statusCode, String error, String message) {
        return new NotifyError(statusCode, error, List.of(message));
    }

    /**
     * jsonschema's message for properties a schema with {@code additionalProperties: false} does not name, as
     * Notify words it: the names sorted, "was" or "were".
     */
    static String unexpected(java.util.Collection<String> names) {
        java.util.TreeSet<String> sorted = new java.util.TreeSet<>(names);
        return "Additional properties are not allowed (" + String.join(", ", sorted)
                + (sorted.size() == 1 ? " was" : " were") + " unexpected)";
    }

    static NotifyError validation(List<String> messages) {
        return new NotifyError(400, "ValidationError", messages);
    }

    String toJson() {
        return JsonText.writeFlask(JsonText.object(
                "errors",
                messages.stream()
                        .map(message -> JsonText.object("error", error, "message", message))
                        .toList(),
                "status_code",
                statusCode));
    }
}
