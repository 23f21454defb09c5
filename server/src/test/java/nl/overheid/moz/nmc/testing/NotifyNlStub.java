package nl.overheid.moz.nmc.testing;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
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
