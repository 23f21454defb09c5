package nl.overheid.moz.nmc.testing;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.get;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static com.github.tomakehurst.wiremock.core.WireMockConfiguration.options;

import com.github.tomakehurst.wiremock.WireMockServer;

/**
 * A minimal WireMock NotifyNL for server tests: {@code POST /v2/notifications/email} answers 201 in
 * Notify's shape with a fresh id. Tests post receipts themselves; the full simulator (callbacks, status
 * lookups) lives in the conformance tests.
 */
public final class NotifyNlStub implements AutoCloseable {

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

    public NotifyNlStub() {
        server.start();
        acceptEverything();
    }

    public void acceptEverything() {
        server.stubFor(post(urlPathEqualTo("/v2/notifications/email")).atPriority(10)
                .willReturn(aResponse().withStatus(201).withHeader("Content-Type", "application/json")
                        .withBody(SENT_201).withTransformers("response-template")));
    }

    /**
     * Status queries by reference answer with one notification in this NotifyNL status ({@code null}: none).
     * The id is NotifyNL's id of the attempt as the NMC stored it, which the test passes in.
     */
    public void statusByReference(String notifyId, String status, java.time.Instant completedAt) {
        String notifications = status == null ? "" : """
                {"id": "%s", "reference": "{{request.query.reference}}", "email_address": "x@example.nl",
                 "phone_number": null, "line_1": null, "line_2": null, "line_3": null, "line_4": null,
                 "line_5": null, "line_6": null, "postcode": null, "postage": null, "type": "email",
                 "status": "%s", "template": {"id": "5b7f9a1e-0c3d-4e2f-8a6b-9c0d1e2f3a4b", "version": 1,
                 "uri": "http://localhost/v2/template/x/version/1"},
                 "body": "Tekst", "subject": "Onderwerp", "created_at": "2026-01-01T10:00:00.000000Z",
                 "created_by_name": null, "sent_at": "2026-01-01T10:00:01.000000Z",
                 "completed_at": %s, "scheduled_for": null, "one_click_unsubscribe_url": null,
                 "is_cost_data_ready": false, "cost_in_pounds": null, "cost_details": {}}
                """.formatted(notifyId, status, status.equals("sending") ? "null" : "\"" + completedAt + "\"");
        server.stubFor(get(urlPathEqualTo("/v2/notifications")).atPriority(1)
                .willReturn(aResponse().withStatus(200).withHeader("Content-Type", "application/json")
                        .withBody("{\"notifications\": [" + notifications + "], \"links\": {\"current\": \"x\"}}")
                        .withTransformers("response-template")));
    }

    /** Every send breaks the connection before an answer: NotifyNL may or may not have the e-mail. */
    public void breakConnections() {
        server.stubFor(post(urlPathEqualTo("/v2/notifications/email")).atPriority(1)
                .willReturn(aResponse().withFault(com.github.tomakehurst.wiremock.http.Fault.CONNECTION_RESET_BY_PEER)));
    }

    /** Every send answers with this status and a Notify error body (for outage and refusal tests). */
    public void answer(int status, String error) {
        server.stubFor(post(urlPathEqualTo("/v2/notifications/email")).atPriority(1)
                .willReturn(aResponse().withStatus(status).withHeader("Content-Type", "application/json")
                        .withBody("{\"errors\":[{\"error\":\"" + error + "\",\"message\":\"simulated\"}],\"status_code\":"
                                + status + "}")));
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
