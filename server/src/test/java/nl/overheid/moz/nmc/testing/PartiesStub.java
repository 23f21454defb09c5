package nl.overheid.moz.nmc.testing;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.github.tomakehurst.wiremock.WireMockServer;

/**
 * Minimal WireMock stand-ins for the parties the NMC calls, on one server, for server tests:
 * <ul>
 *   <li>NotifyNL: {@code POST /v2/notifications/email} answers 201 in Notify's shape with a fresh id, and
 *       {@code GET /v2/template/{id}} a template without placeholders ({@link #template} gives one some);</li>
 *   <li>the journal of the processing log ({@link #LDV_PATH}): {@link JournaledLdv} posts every row the LDV store
 *       acknowledged here, so the journal shows records and calls in the order they happened;</li>
 *   <li>the Profielservice (its real contract, {@code api-spec/profielservice.yaml}): {@code POST /partij} by
 *       number ({@link #profiel}: one unscoped, verified e-mail address; any other number is its own 404), and
 *       {@code DELETE /contactgegeven/{id}} answered 204.</li>
 * </ul>
 * Tests post receipts themselves and put faults on top at priority 1. The full simulators (callbacks,
 * status lookups, dev data, validation) live in the conformance tests.
 */
public final class PartiesStub implements AutoCloseable {

    public static final String SENT_201 = """
            {"id": "{{randomValue type='UUID'}}",
             "reference": "{{jsonPath request.body '$.reference'}}",
             "content": {"body": "Tekst", "subject": "Onderwerp", "from_email": "nmc@notifynl.example",
                         "one_click_unsubscribe_url": null},
             "uri": "http://localhost/v2/notifications/x",
             "template": {"id": "{{jsonPath request.body '$.template_id'}}", "version": 1,
                          "uri": "http://localhost/v2/templates/x"},
             "scheduled_for": null}
            """;

    private final WireMockServer server = new WireMockServer(options().dynamicPort());

    /** Where {@link JournaledLdv} mirrors the rows of the processing log (not a party: the store is PostgreSQL). */
    public static final String LDV_PATH = "/test/ldv-records";

    public static final String LOOKUP_PATH = "/api/profielservice/v1/partij";
    /** The prefix of {@code DELETE /contactgegeven/{contactgegevenId}}, the invalid-address report. */
    public static final String REPORT_PATH = "/api/profielservice/v1/contactgegeven/";
    /** The Profielservice's own 404 of an unknown or deleted party, as its code writes it. */
    public static final String PARTY_NOT_FOUND = "{\"status\":404,\"title\":\"Partij niet gevonden\","
            + "\"detail\":\"Geen partij gevonden voor het opgegeven identificatienummer.\","
            + "\"instance\":\"/api/profielservice/v1/partij\"}";

    public PartiesStub() {
        server.start();
        acceptEverything();
        journalLdvRecords();
        defaultProfielservice();
    }

    /** Deletes are answered 204; an unregistered number is the Profielservice's own 404. */
    private void defaultProfielservice() {
        server.stubFor(com.github.tomakehurst.wiremock.client.WireMock.delete(urlPathMatching(REPORT_PATH + ".+"))
                .atPriority(10)
                .willReturn(aResponse().withStatus(204).withHeader("API-Version", "1.0.0")));
        server.stubFor(post(urlPathEqualTo(LOOKUP_PATH))
                .atPriority(10)
                .willReturn(aResponse()
                        .withStatus(404)
                        .withHeader("Content-Type", "application/problem+json")
                        .withBody(PARTY_NOT_FOUND)));
    }

    /** The mirrored rows of the processing log are taken (and kept in the journal). */
    public void journalLdvRecords() {
        server.stubFor(post(urlPathEqualTo(LDV_PATH))
                .atPriority(10)
                .willReturn(aResponse().withStatus(204)));
    }

    /** The id of the one contactgegeven {@link #profiel} answers for a number: derived from it, so tests know it. */
    public static java.util.UUID contactgegevenId(String number) {
        return java.util.UUID.nameUUIDFromBytes(
                ("contactgegeven:" + number).getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    /** The Profielservice knows this party (any identifier type) with one unscoped, verified e-mail address. */
    public void profiel(String number, String emailadres) {
        profiel(number, emailadres, "2026-01-01T00:00:00Z");
    }

    /**
     * The same, its contactgegeven (always the same id for this number) last updated at {@code lastUpdated}: the
     * Profielservice changes an address in place, under its id, with a new {@code lastUpdated}.
     */
    public void profiel(String number, String emailadres, String lastUpdated) {
        server.stubFor(post(urlPathEqualTo(LOOKUP_PATH))
                .atPriority(5)
                .withRequestBody(com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath(
                        "$.identificatieNummer", com.github.tomakehurst.wiremock.client.WireMock.equalTo(number)))
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withHeader("API-Version", "1.0.0")
                        .withBody(partij(number, contactgegevenId(number), emailadres, lastUpdated))));
    }

    /** A {@code PartijResponse} with one unscoped, verified e-mail address. */
    public static String partij(String number, java.util.UUID contactgegeven, String emailadres) {
        return partij(number, contactgegeven, emailadres, "2026-01-01T00:00:00Z");
    }

    private static String partij(String number, java.util.UUID contactgegeven, String emailadres, String lastUpdated) {
        return """
                {"partijId": "%s",
                 "identificaties": [{"identificatieType": "KVK", "identificatieNummer": "%s"}],
                 "voorkeuren": [],
                 "contactgegevens": [{"id": "%s", "type": "Email", "waarde": "%s", "isGeverifieerd": true,
                                      "isDefault": false, "createdAt": "2026-01-01T00:00:00Z",
                                      "lastUpdated": "%s", "scopes": []}]}
                """.formatted(
                        java.util.UUID.nameUUIDFromBytes(number.getBytes(java.nio.charset.StandardCharsets.UTF_8)),
                        number,
                        contactgegeven,
                        emailadres,
                        lastUpdated);
    }

    /** A problem of any status, in the Profielservice's shape (no {@code type}) with this title. */
    public static com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder problem(int status, String title) {
        return aResponse()
                .withStatus(status)
                .withHeader("Content-Type", "application/problem+json")
                .withBody("{\"status\": " + status + ", \"title\": \"" + title + "\"}");
    }

    public void acceptEverything() {
        server.stubFor(post(urlPathEqualTo("/v2/notifications/email"))
                .atPriority(10)
                .willReturn(aResponse()
                        .withStatus(201)
                        .withHeader("Content-Type", "application/json")
                        .withBody(SENT_201)
                        .withTransformers("response-template")));
        // NotifyNL's own answers to status queries about what it does not know
        server.stubFor(get(urlPathMatching("/v2/notifications/[^/]+"))
                .atPriority(10)
                .willReturn(aResponse()
                        .withStatus(404)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"errors\":[{\"error\":\"NoResultFound\",\"message\":\"No result found\"}],"
                                + "\"status_code\":404}")));
        server.stubFor(get(urlPathEqualTo("/v2/notifications"))
                .atPriority(10)
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"links\":{\"current\":\"http://localhost/v2/notifications\"},"
                                + "\"notifications\":[]}")));
        server.stubFor(get(urlPathMatching("/v2/template/[^/]+"))
                .atPriority(10)
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(templateBody("{{request.pathSegments.[2]}}"))
                        .withTransformers("response-template")));
    }

    /** NotifyNL's template {@code templateId} asks for these placeholders ({@code GET /v2/template/{id}}). */
    public void template(String templateId, String... placeholders) {
        server.stubFor(get(urlPathEqualTo("/v2/template/" + templateId))
                .atPriority(5)
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(templateBody(templateId, placeholders))));
    }

    /** A template as NotifyNL's {@code serialize_for_v2} writes it, with these placeholders. */
    private static String templateBody(String templateId, String... placeholders) {
        StringBuilder personalisation = new StringBuilder();
        for (String placeholder : placeholders) {
            personalisation
                    .append(personalisation.isEmpty() ? "" : ",")
                    .append('"')
                    .append(placeholder)
                    .append("\":{\"required\":true}");
        }
        return ("{\"body\":\"Beste klant\",\"created_at\":\"2026-01-01T10:00:00.000000Z\","
                        + "\"created_by\":\"beheer@example.nl\",\"id\":\"%s\",\"letter_contact_block\":null,"
                        + "\"name\":\"Test\",\"personalisation\":{%s},\"postage\":null,\"subject\":\"Bericht\","
                        + "\"type\":\"email\",\"updated_at\":null,\"version\":1}")
                .formatted(templateId, personalisation);
    }

    /**
     * NotifyNL knows the notification under {@code notifyId} in this status ({@code null}: it knows none):
     * both {@code GET /v2/notifications/{id}} and {@code GET /v2/notifications?reference=} answer so.
     */
    public void status(String notifyId, String status, java.time.Instant completedAt) {
        if (status == null) {
            server.stubFor(get(urlPathMatching("/v2/notifications/[^/]+"))
                    .atPriority(1)
                    .willReturn(aResponse()
                            .withStatus(404)
                            .withHeader("Content-Type", "application/json")
                            .withBody("{\"errors\":[{\"error\":\"NoResultFound\",\"message\":\"No result found\"}],"
                                    + "\"status_code\":404}")));
            server.stubFor(get(urlPathEqualTo("/v2/notifications"))
                    .atPriority(1)
                    .willReturn(aResponse()
                            .withStatus(200)
                            .withHeader("Content-Type", "application/json")
                            .withBody("{\"notifications\": [], \"links\": {\"current\": \"x\"}}")));
            return;
        }
        String notificatie = """
                {"id": "%s", "reference": "%s", "email_address": "x@example.nl",
                 "phone_number": null, "line_1": null, "line_2": null, "line_3": null, "line_4": null,
                 "line_5": null, "line_6": null, "postcode": null, "postage": null, "type": "email",
                 "status": "%s", "template": {"id": "5b7f9a1e-0c3d-4e2f-8a6b-9c0d1e2f3a4b", "version": 1,
                 "uri": "http://localhost/v2/template/x/version/1"},
                 "body": "Tekst", "subject": "Onderwerp", "created_at": "2026-01-01T10:00:00.000000Z",
                 "created_by_name": null, "sent_at": "2026-01-01T10:00:01.000000Z",
                 "completed_at": %s, "scheduled_for": null, "one_click_unsubscribe_url": null,
                 "is_cost_data_ready": false, "cost_in_pounds": null, "cost_details": {}}
                """;
        String completed = status.equals("sending") ? "null" : "\"" + completedAt + "\"";
        server.stubFor(get(urlPathEqualTo("/v2/notifications/" + notifyId))
                .atPriority(1)
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody(notificatie.formatted(notifyId, "ref", status, completed))));
        server.stubFor(get(urlPathEqualTo("/v2/notifications"))
                .atPriority(1)
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"notifications\": ["
                                + notificatie.formatted(notifyId, "{{request.query.reference}}", status, completed)
                                + "], \"links\": {\"current\": \"x\"}}")
                        .withTransformers("response-template")));
    }

    /** A notification as {@code GET /v2/notifications} lists it: its id, status and completed_at (null: none yet). */
    public record Listed(String notifyId, String status, java.time.Instant completedAt) {}

    /**
     * {@code GET /v2/notifications?reference=} for this reference (an attempt id) lists these notifications, newest
     * first (e.g. both e-mails of an attempt POSTed twice); other references are answered as before.
     */
    public void referenced(java.util.UUID reference, java.util.List<Listed> notifications) {
        StringBuilder list = new StringBuilder();
        for (Listed listed : notifications) {
            if (!list.isEmpty()) {
                list.append(',');
            }
            list.append("""
                    {"id": "%s", "reference": "%s", "email_address": "x@example.nl", "type": "email",
                     "status": "%s", "template": {"id": "5b7f9a1e-0c3d-4e2f-8a6b-9c0d1e2f3a4b", "version": 1,
                     "uri": "http://localhost/v2/template/x/version/1"}, "body": "Tekst", "subject": "Onderwerp",
                     "created_at": "2026-01-01T10:00:00.000000Z", "sent_at": "2026-01-01T10:00:01.000000Z",
                     "completed_at": %s}
                    """.formatted(
                            listed.notifyId(),
                            reference,
                            listed.status(),
                            listed.completedAt() == null ? "null" : "\"" + listed.completedAt() + "\""));
        }
        server.stubFor(get(urlPathEqualTo("/v2/notifications"))
                .withQueryParam(
                        "reference", com.github.tomakehurst.wiremock.client.WireMock.equalTo(reference.toString()))
                .atPriority(1)
                .willReturn(aResponse()
                        .withStatus(200)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"notifications\": [" + list + "], \"links\": {\"current\": \"x\"}}")));
    }

    /** Removes every test stub: NotifyNL accepts everything again, the defaults return. */
    public void reset() {
        server.resetMappings();
        acceptEverything();
        journalLdvRecords();
        defaultProfielservice();
    }

    /** Every send breaks the connection before an answer: NotifyNL may or may not have the e-mail. */
    public void breakConnections() {
        server.stubFor(post(urlPathEqualTo("/v2/notifications/email"))
                .atPriority(1)
                .willReturn(
                        aResponse().withFault(com.github.tomakehurst.wiremock.http.Fault.CONNECTION_RESET_BY_PEER)));
    }

    /** NotifyNL's refusal of the address: 400 {@code ValidationError} "email_address Not a valid email address". */
    public void refuseAddress() {
        refuse(400, "ValidationError", "email_address Not a valid email address");
    }

    /** Every send answers with this status and NotifyNL's error body, with exactly this error and message. */
    public void refuse(int status, String error, String message) {
        refuse(null, status, error, message);
    }

    /** {@link #refuse(int, String, String)} for the sends of one template only ({@code null}: every send). */
    public void refuse(String templateId, int status, String error, String message) {
        var send = post(urlPathEqualTo("/v2/notifications/email"));
        if (templateId != null) {
            send = send.withRequestBody(com.github.tomakehurst.wiremock.client.WireMock.matchingJsonPath(
                    "$.template_id", com.github.tomakehurst.wiremock.client.WireMock.equalTo(templateId)));
        }
        server.stubFor(send.atPriority(1)
                .willReturn(aResponse()
                        .withStatus(status)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"errors\":[{\"error\":\"" + error + "\",\"message\":\""
                                + message.replace("\\", "\\\\").replace("\"", "\\\"")
                                + "\"}],\"status_code\":" + status + "}")));
    }

    /** Every send answers with this status and a Notify error body (for outage and refusal tests). */
    public void answer(int status, String error) {
        server.stubFor(post(urlPathEqualTo("/v2/notifications/email"))
                .atPriority(1)
                .willReturn(aResponse()
                        .withStatus(status)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"errors\":[{\"error\":\"" + error
                                + "\",\"message\":\"simulated\"}],\"status_code\":" + status + "}")));
    }

    public WireMockServer server() {
        return server;
    }

    public String baseUrl() {
        return server.baseUrl();
    }

    @Override
    public void close() {
        server.stop();
    }
}
