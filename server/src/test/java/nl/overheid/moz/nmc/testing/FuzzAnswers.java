package nl.overheid.moz.nmc.testing;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.regex.Pattern;

/**
 * What every answer to a fuzzed request must be, whatever was sent: never a 5xx; a problem (RFC 9457,
 * {@code application/problem+json}) for every 4xx, with its status, a title and a detail; and no trace of the
 * NMC's insides — no stack trace, no exception, no Java class name.
 */
public final class FuzzAnswers {

    private static final ObjectMapper MAPPER = new ObjectMapper();
    /** A Java class or package name (a CloudEvent {@code type} is checked only where events are not expected). */
    private static final Pattern CLASS_NAME = Pattern.compile(
            "\\b(?:java|javax|jakarta|sun|com|org|io|nl|net)\\.[a-z0-9_]+\\.[A-Za-z0-9_.$]*[A-Za-z0-9_$]");

    private FuzzAnswers() {}

    /** Checks an answer's status and body; returns the body as JSON (null when it has none or is not JSON). */
    public static JsonNode check(String what, int status, String contentType, String body, boolean mayHoldEvents) {
        assertThat(status).as("%s: the answer's status (body %s)", what, body).isBetween(200, 499);
        return checkBody(what, status, contentType, body, mayHoldEvents);
    }

    /** The checks of {@link #check} but the status range: for a status the caller has judged itself. */
    public static JsonNode checkBody(String what, int status, String contentType, String body, boolean mayHoldEvents) {
        assertThat(body)
                .as("%s: no stack trace", what)
                .doesNotContain("Exception")
                .doesNotContain("\tat ")
                .doesNotContain("at nl.overheid")
                .doesNotContain("Caused by");
        if (!mayHoldEvents || status >= 400) {
            assertThat(CLASS_NAME.matcher(body).find())
                    .as("%s: no Java class name in %s", what, body)
                    .isFalse();
        }
        JsonNode json = null;
        if (!body.isEmpty() && contentType.contains("json")) {
            try {
                json = MAPPER.readTree(body);
            } catch (IOException e) {
                throw new AssertionError(what + ": a JSON answer that is no JSON: " + body, e);
            }
        }
        if (status >= 400 && !body.isEmpty()) {
            assertThat(contentType).as("%s: a %d is a problem", what, status).startsWith("application/problem+json");
            assertThat(json.path("status").asInt()).as(what).isEqualTo(status);
            assertThat(json.path("title").asText()).as(what).isNotBlank();
            assertThat(json.path("detail").asText()).as(what).isNotBlank();
        }
        return json;
    }
}
