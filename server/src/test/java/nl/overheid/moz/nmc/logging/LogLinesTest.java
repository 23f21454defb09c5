package nl.overheid.moz.nmc.logging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.logging.StreamHandler;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.testing.RunningNmc;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestIam;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JSON log lines as the production handler writes them (one object per line), parsed: a request's lines carry
 * its trace (the caller's {@code traceparent}) and a span; a task's lines carry the notification's trace, the
 * notification, the task kind and the DV; the plain-text format carries the same context.
 */
class LogLinesTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final TestIam IAM = new TestIam();
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final ObjectMapper JSON = new ObjectMapper();

    private final Logger nmcLogger = Logger.getLogger("nl.overheid.moz.nmc");
    private final ByteArrayOutputStream jsonOut = new ByteArrayOutputStream();
    private final ByteArrayOutputStream textOut = new ByteArrayOutputStream();
    private final StreamHandler json = new StreamHandler(jsonOut, StdoutLogHandler.formatter("json"));
    private final StreamHandler text = new StreamHandler(textOut, StdoutLogHandler.formatter("text"));
    private Level level;
    private RunningNmc nmc;

    @BeforeEach
    void start() {
        DB.reset();
        level = nmcLogger.getLevel();
        nmcLogger.setLevel(Level.ALL);
        json.setLevel(Level.ALL);
        text.setLevel(Level.ALL);
        nmcLogger.addHandler(json);
        nmcLogger.addHandler(text);
        nmc = RunningNmc.start(DB, IAM, MutableClock.startingNow(), "{}");
    }

    @AfterEach
    void stop() {
        nmc.close();
        nmcLogger.removeHandler(json);
        nmcLogger.removeHandler(text);
        nmcLogger.setLevel(level);
    }

    private List<JsonNode> lines() throws Exception {
        json.flush();
        List<JsonNode> lines = new ArrayList<>();
        for (String line : jsonOut.toString(StandardCharsets.UTF_8).split("\\R")) {
            JsonNode object = JSON.readTree(line);
            assertThat(object.isObject()).as(line).isTrue();
            for (String field : List.of("time", "level", "logger", "message")) {
                assertThat(object.path(field).isTextual())
                        .as(field + " in " + line)
                        .isTrue();
            }
            lines.add(object);
        }
        return lines;
    }

    @Test
    void aRequestsLinesCarryTheCallersTraceAndASpan() throws Exception {
        Http.Response refused =
                nmc.http().request("GET", "/api/nmc/v1/notificaties/wijzigingen", "not-a-token", null, null);
        assertThat(refused.status()).isEqualTo(401);
        // The same request with a traceparent header: Http has no header parameter, so use the JDK client.
        var request = java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(nmc.http().baseUrl() + "/api/nmc/v1/notificaties/wijzigingen"))
                .header("Authorization", "Bearer not-a-token")
                .header("traceparent", "00-" + TRACE + "-00f067aa0ba902b7-01")
                .GET()
                .build();
        assertThat(java.net.http.HttpClient.newHttpClient()
                        .send(request, java.net.http.HttpResponse.BodyHandlers.discarding())
                        .statusCode())
                .isEqualTo(401);

        List<JsonNode> refusals = lines().stream()
                .filter(line -> line.path("message").asText().contains("token refused"))
                .toList();
        assertThat(refusals).hasSize(2);
        assertThat(refusals).allSatisfy(line -> {
            assertThat(line.path("trace_id").asText()).matches("[0-9a-f]{32}");
            assertThat(line.path("span_id").asText()).matches("[0-9a-f]{16}");
            assertThat(line.path("level").asText()).isEqualTo("FINE");
        });
        assertThat(refusals.get(1).path("trace_id").asText()).isEqualTo(TRACE);
        assertThat(refusals.get(0).path("trace_id").asText())
                .as("a new trace without traceparent")
                .isNotEqualTo(TRACE);
    }

    @Test
    void aTasksLinesCarryTheNotificationsTraceTheNotificationTheKindAndTheDv() throws Exception {
        var request = java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create(nmc.http().baseUrl() + "/api/nmc/v1/decentraal/notificaties"))
                .header("Authorization", "Bearer " + IAM.token(TestNmc.DV_A))
                .header("Content-Type", "application/json")
                .header("traceparent", "00-" + TRACE + "-00f067aa0ba902b7-01")
                .POST(java.net.http.HttpRequest.BodyPublishers.ofString(Http.json(Map.of(
                        "dvRef", "log-1", "berichttype", TestNmc.BERICHTTYPE, "emailadres", "iemand@example.nl"))))
                .build();
        var accepted = java.net.http.HttpClient.newHttpClient()
                .send(request, java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(accepted.statusCode()).isEqualTo(202);
        String id = JSON.readTree(accepted.body()).path("id").asText();
        String dvId = DB.query("SELECT dv_id FROM notificatie WHERE id = CAST(? AS uuid)", id)
                .getFirst();

        nmc.parties().answer(503, "ServiceUnavailable");
        ManualRunner.of(nmc.nmc()).runWorkerOnce(TaskKind.VERZENDEN);

        List<JsonNode> failed = lines().stream()
                .filter(line -> line.path("level").asText().equals("WARNING")
                        && line.path("message").asText().contains("HTTP 503"))
                .toList();
        assertThat(failed).hasSize(1);
        JsonNode line = failed.getFirst();
        assertThat(line.path("trace_id").asText()).isEqualTo(TRACE);
        assertThat(line.path("span_id").asText()).matches("[0-9a-f]{16}");
        assertThat(line.path("notificatie_id").asText()).isEqualTo(id);
        assertThat(line.path("taak_soort").asText()).isEqualTo("verzenden");
        assertThat(line.path("dv_id").asText()).isEqualTo(dvId);

        text.flush();
        assertThat(textOut.toString(StandardCharsets.UTF_8))
                .containsPattern("WARNING .*HTTP 503.*\\[.*notificatie_id=" + id + ".*trace_id=" + TRACE
                        + ".*]"); // keys in name order
    }
}
