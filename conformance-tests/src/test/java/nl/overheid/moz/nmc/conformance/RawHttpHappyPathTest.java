package nl.overheid.moz.nmc.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.api.ApiDocuments;
import nl.overheid.moz.nmc.api.SchemaValidator;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.TestNmc;

/** The suite over raw HTTP; every response body is validated against the published OpenAPI schema. */
class RawHttpHappyPathTest extends HappyPathSuite {

    private static final SchemaValidator CONTRACT = ApiDocuments.load().dvSchemas();
    private final Http http = new Http(environment.baseUrl);

    @Override
    protected Accepted accept(String token, String dvRef, String email) {
        Http.Response response = http.post("/api/nmc/v1/decentraal/notificaties", token, Http.json(Map.of(
                "dvRef", dvRef, "berichttype", TestNmc.BERICHTTYPE, "emailadres", email,
                "personalisation", Map.of("onderwerp", "Conformance"))));
        JsonNode body = conforming(response, 202, "NotificatieAangenomen");
        return new Accepted(UUID.fromString(body.path("id").asText()), body.path("status").asText(),
                body.path("versie").asInt(), response.header("Location").orElse(""));
    }

    @Override
    protected Snapshot status(String token, UUID id) {
        JsonNode body = conforming(http.get("/api/nmc/v1/notificaties/" + id, token), 200, "Notificatie");
        return new Snapshot(body.path("status").asText(), body.path("versie").asInt(),
                body.path("reden").isMissingNode() ? null : body.path("reden").asText());
    }

    @Override
    protected Page feed(String token, String cursor) {
        String query = cursor == null ? "" : "?cursor=" + cursor;
        JsonNode body = conforming(http.get("/api/nmc/v1/notificaties/wijzigingen" + query, token), 200, "Wijzigingen");
        List<JsonNode> events = new ArrayList<>();
        body.path("events").forEach(events::add);
        return new Page(events, body.path("cursor").asText());
    }

    @Override
    protected void acknowledge(String token, String cursor) {
        conforming(http.put("/api/nmc/v1/notificaties/wijzigingen/bevestiging", token,
                "{\"cursor\":\"" + cursor + "\"}"), 200, "Bevestiging");
    }

    private static JsonNode conforming(Http.Response response, int status, String schema) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.header("API-Version")).contains("1.0.0");
        assertThat(response.contentType()).startsWith("application/json");
        JsonNode body = response.json();
        assertThat(CONTRACT.validate(schema, body)).as("response conforms to " + schema).isEmpty();
        return body;
    }
}
