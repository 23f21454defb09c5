package nl.overheid.moz.nmc.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.TestNmc;

/**
 * The suite over raw HTTP. Every response (status, headers, body) is validated against the published
 * OpenAPI document by an independent validator (Atlassian's swagger-request-validator), never by the
 * server's own request validation: an oracle the server does not share.
 */
class RawHttpHappyPathTest extends HappyPathSuite {

    private static final OpenApiInteractionValidator CONTRACT =
            OpenApiInteractionValidator.createForInlineApiSpecification(published())
                    .build();
    private final Http http = Http.of(environment.nmc);

    /** The document as the repository publishes it, read from api-spec/ (not from the server's classpath). */
    private static String published() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("api-spec/nmc-dv-api.yaml"))) {
            dir = dir.getParent();
        }
        try {
            return Files.readString(dir.resolve("api-spec/nmc-dv-api.yaml"));
        } catch (IOException | NullPointerException e) {
            throw new IllegalStateException("cannot read api-spec/nmc-dv-api.yaml", e);
        }
    }

    @Override
    protected Accepted accept(String token, String dvRef, String email, String berichttype) {
        Http.Response response = http.post(
                "/api/nmc/v1/decentraal/notificaties",
                token,
                Http.json(Map.of(
                        "dvRef",
                        dvRef,
                        "berichttype",
                        berichttype,
                        "emailadres",
                        email,
                        "personalisation",
                        Map.of("onderwerp", "Conformance"))));
        JsonNode body = conforming(Request.Method.POST, "/api/nmc/v1/decentraal/notificaties", response, 202);
        return new Accepted(
                UUID.fromString(body.path("id").asText()),
                body.path("status").asText(),
                body.path("versie").asInt(),
                response.header("Location").orElse(""));
    }

    @Override
    protected Accepted acceptCentraal(String token, String dvRef, String kvkNummer) {
        Http.Response response = http.post(
                "/api/nmc/v1/centraal/notificaties",
                token,
                Http.json(Map.of(
                        "dvRef",
                        dvRef,
                        "berichttype",
                        TestNmc.BERICHTTYPE,
                        "identificatieType",
                        "KVK",
                        "identificatieNummer",
                        kvkNummer,
                        "personalisation",
                        Map.of("onderwerp", "Conformance"))));
        JsonNode body = conforming(Request.Method.POST, "/api/nmc/v1/centraal/notificaties", response, 202);
        return new Accepted(
                UUID.fromString(body.path("id").asText()),
                body.path("status").asText(),
                body.path("versie").asInt(),
                response.header("Location").orElse(""));
    }

    @Override
    protected List<Integer> acceptBulk(String token, List<String> dvRefs, String email, List<Accepted> accepted) {
        List<Map<String, Object>> items = dvRefs.stream()
                .map(dvRef ->
                        Map.<String, Object>of("dvRef", dvRef, "berichttype", TestNmc.BERICHTTYPE, "emailadres", email))
                .toList();
        String path = "/api/nmc/v1/decentraal/notificaties/bulk";
        JsonNode body = conforming(
                Request.Method.POST, path, http.post(path, token, Http.json(Map.of("notificaties", items))), 200);
        List<Integer> statuses = new java.util.ArrayList<>();
        body.path("resultaten").forEach(result -> {
            statuses.add(result.path("status").asInt());
            JsonNode n = result.path("notificatie");
            accepted.add(
                    n.isMissingNode()
                            ? null
                            : new Accepted(
                                    UUID.fromString(n.path("id").asText()),
                                    n.path("status").asText(),
                                    n.path("versie").asInt(),
                                    ""));
        });
        return statuses;
    }

    @Override
    protected Snapshot status(String token, UUID id) {
        JsonNode body = conforming(
                Request.Method.GET,
                "/api/nmc/v1/notificaties/" + id,
                http.get("/api/nmc/v1/notificaties/" + id, token),
                200);
        return new Snapshot(
                body.path("status").asText(),
                body.path("versie").asInt(),
                body.path("reden").isMissingNode() ? null : body.path("reden").asText());
    }

    @Override
    protected Page feed(String token, String cursor) {
        String query = cursor == null ? "" : "?cursor=" + cursor;
        JsonNode body = conforming(
                Request.Method.GET,
                "/api/nmc/v1/notificaties/wijzigingen",
                http.get("/api/nmc/v1/notificaties/wijzigingen" + query, token),
                200);
        List<JsonNode> events = new ArrayList<>();
        body.path("events").forEach(events::add);
        return new Page(events, body.path("cursor").asText());
    }

    @Override
    protected void acknowledge(String token, String cursor) {
        conforming(
                Request.Method.PUT,
                "/api/nmc/v1/notificaties/wijzigingen/bevestiging",
                http.put("/api/nmc/v1/notificaties/wijzigingen/bevestiging", token, "{\"cursor\":\"" + cursor + "\"}"),
                200);
    }

    @org.junit.jupiter.api.Test
    void theOracleRejectsAResponseOutsideTheContract() {
        String wrong = "{\"id\":\"" + UUID.randomUUID() + "\",\"status\":\"verstuurd\",\"versie\":\"1\"}";
        ValidationReport report = CONTRACT.validateResponse(
                "/api/nmc/v1/notificaties/" + UUID.randomUUID(),
                Request.Method.GET,
                SimpleResponse.Builder.ok()
                        .withContentType("application/json")
                        .withBody(wrong)
                        .withHeader("API-Version", "1.1.0")
                        .build());
        assertThat(report.hasErrors())
                .as("an unknown status and a string versie are outside the contract")
                .isTrue();
    }

    private static JsonNode conforming(Request.Method method, String path, Http.Response response, int status) {
        assertThat(response.status()).as(response.body()).isEqualTo(status);
        assertThat(response.header("API-Version")).contains("1.1.0");
        assertThat(response.contentType()).startsWith("application/json");
        SimpleResponse.Builder published =
                SimpleResponse.Builder.status(response.status()).withBody(response.body());
        response.headers().map().forEach((name, values) -> published.withHeader(name, values));
        ValidationReport report = CONTRACT.validateResponse(path, method, published.build());
        assertThat(report.getMessages())
                .as(method + " " + path + " conforms to the published contract")
                .isEmpty();
        return response.json();
    }
}
