package nl.overheid.moz.nmc.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import com.atlassian.oai.validator.OpenApiInteractionValidator;
import com.atlassian.oai.validator.model.Request;
import com.atlassian.oai.validator.model.SimpleRequest;
import com.atlassian.oai.validator.model.SimpleResponse;
import com.atlassian.oai.validator.report.ValidationReport;
import com.fasterxml.jackson.databind.JsonNode;
import com.github.tomakehurst.wiremock.http.HttpHeader;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * NotifyNL as it really answers, end to end through the running NMC and the NotifyNL simulator: a service in trial
 * mode ends no notification {@code niet-bezorgbaar} (its sends are parked under the setup error's class, reopened
 * through the operator API and delivered once the service left trial mode); a template that asks for a placeholder
 * makes acceptance refuse a notification without it; a complaint changes nothing. Then every request the NMC sent to
 * NotifyNL in this whole test run, and every answer it got, is validated against {@code api-spec/notifynl.yaml} by
 * Atlassian's validator, which is not the code that produced either.
 */
class NotifyNlConformanceTest {

    private static final ConformanceEnvironment environment = ConformanceEnvironment.get();
    private static final String OPERATOR_BASE = "/api/nmc-beheer/v1";
    private static final Set<String> TERMINAL =
            Set.of("definitief-bezorgd", "niet-bezorgbaar", "technisch-mislukt", "verlopen", "bezorgstatus-onbekend");

    private final Http http = Http.of(environment.nmc);

    /** The first service, standaard (test-bericht's): what it is at the simulated NotifyNL. */
    private static NotifyNlSimulator.ServiceSetup standaard() {
        return environment.notifyNl.service(environment.notifyNl.serviceId());
    }

    @AfterEach
    void serviceBackAsConfigured() {
        standaard().reset();
    }

    @Test
    void inTrialModeFiftyNotificationsAreParkedNotBlamedThenReopenedAndDelivered() throws Exception {
        standaard().keyType(NotifyNlSimulator.KeyType.NORMAL).trialMode("team@example.nl");
        String token = environment.token(TestNmc.DV_A);
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            ids.add(accept(token, "proef-" + i + "-" + UUID.randomUUID(), "ontvanger" + i + "@example.nl"));
        }

        List<Long> parked = new ArrayList<>();
        await(Duration.ofSeconds(90), () -> {
            parked.clear();
            parked.addAll(parked(ids));
            return parked.size() == ids.size();
        });
        assertThat(parked).as("every send parked under the setup error's class").hasSize(50);
        for (UUID id : ids) {
            JsonNode notificatie =
                    http.get("/api/nmc/v1/notificaties/" + id, token).json();
            assertThat(notificatie.path("status").asText())
                    .as("not blamed on the address")
                    .isEqualTo("in-verzending");
            assertThat(notificatie.path("pogingen").get(0).path("status").asText())
                    .isEqualTo("gepland");
        }

        // The operator has the service taken out of trial mode, and reopens what was parked.
        standaard().leaveTrialMode();
        Http.Response reopened = http.post(
                OPERATOR_BASE + "/taken/heropeningen",
                operator(),
                Http.json(Map.of("taken", parked, "toelichting", "NotifyNL-dienst uit de proefmodus")));
        assertThat(reopened.status()).as(reopened.body()).isEqualTo(200);
        assertThat(reopened.json().path("heropend")).hasSize(50);

        Map<UUID, String> ends = new java.util.HashMap<>();
        await(Duration.ofSeconds(90), () -> {
            for (UUID id : ids) {
                ends.put(
                        id,
                        http.get("/api/nmc/v1/notificaties/" + id, token)
                                .json()
                                .path("status")
                                .asText());
            }
            return ends.values().stream().allMatch(TERMINAL::contains);
        });
        assertThat(ends.values()).as("all delivered").containsOnly("definitief-bezorgd");
        assertThat(ends).hasSize(50);
    }

    @Test
    void aTemplateThatAsksForNaamMakesAcceptanceRefuseANotificationWithoutIt() throws Exception {
        standaard().template(NotifyNlSimulator.Template.email(UUID.fromString(TestNmc.TEMPLATE_ID), "naam"));
        String token = environment.token(TestNmc.DV_A);
        Http.Response[] refused = new Http.Response[1];
        await(Duration.ofSeconds(30), () -> {
            refused[0] = http.post(
                    "/api/nmc/v1/decentraal/notificaties",
                    token,
                    Http.json(Map.of(
                            "dvRef",
                            "naam-" + UUID.randomUUID(),
                            "berichttype",
                            TestNmc.BERICHTTYPE,
                            "emailadres",
                            "iemand@example.nl")));
            return refused[0].status() == 400;
        });
        assertThat(refused[0].status()).as(refused[0].body()).isEqualTo(400);
        assertThat(refused[0].json().path("errors").get(0).path("name").asText())
                .isEqualTo("/personalisation/naam");

        Http.Response accepted = http.post(
                "/api/nmc/v1/decentraal/notificaties",
                token,
                Http.json(Map.of(
                        "dvRef",
                        "naam-" + UUID.randomUUID(),
                        "berichttype",
                        TestNmc.BERICHTTYPE,
                        "emailadres",
                        "iemand@example.nl",
                        "personalisation",
                        Map.of("naam", "Voorbeeld B.V."))));
        assertThat(accepted.status()).as(accepted.body()).isEqualTo(202);
        UUID id = UUID.fromString(accepted.json().path("id").asText());
        await(
                Duration.ofSeconds(30),
                () -> TERMINAL.contains(http.get("/api/nmc/v1/notificaties/" + id, token)
                        .json()
                        .path("status")
                        .asText()));
        assertThat(http.get("/api/nmc/v1/notificaties/" + id, token)
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("definitief-bezorgd");

        standaard().reset();
        await(
                Duration.ofSeconds(30),
                () -> http.post(
                                        "/api/nmc/v1/decentraal/notificaties",
                                        token,
                                        Http.json(Map.of(
                                                "dvRef",
                                                "zonder-" + UUID.randomUUID(),
                                                "berichttype",
                                                TestNmc.BERICHTTYPE,
                                                "emailadres",
                                                "iemand@example.nl")))
                                .status()
                        == 202);
    }

    @Test
    void aComplaintIsAcceptedAndChangesNothing() throws Exception {
        String token = environment.token(TestNmc.DV_A);
        int callbacks = environment.notifyNl.callbacksDelivered();
        UUID id = accept(token, "klacht-" + UUID.randomUUID(), NotifyNlSimulator.COMPLAINT_ADDRESS);
        await(
                Duration.ofSeconds(30),
                () -> TERMINAL.contains(http.get("/api/nmc/v1/notificaties/" + id, token)
                        .json()
                        .path("status")
                        .asText()));
        assertThat(http.get("/api/nmc/v1/notificaties/" + id, token)
                        .json()
                        .path("status")
                        .asText())
                .isEqualTo("definitief-bezorgd");
        assertThat(environment.notifyNl.awaitCallbacks(Duration.ofSeconds(10))).isTrue();
        assertThat(environment.notifyNl.callbacksDelivered())
                .as("the receipt and the complaint both answered 200")
                .isGreaterThanOrEqualTo(callbacks + 2);
        assertThat(http.request("GET", "/observe/metrics", null, null, null).body())
                .contains("nmc_notifynl_complaints_total");
    }

    @Test
    void everyExchangeWithNotifyNlMatchesOurContract() throws Exception {
        String token = environment.token(TestNmc.DV_A);
        // a delivery, a technical failure only a status query finds, and a refusal of the setup
        UUID delivered = accept(token, "contract-" + UUID.randomUUID(), "iemand@example.nl");
        UUID queried = accept(token, "contract-" + UUID.randomUUID(), NotifyNlSimulator.NO_CALLBACK_ADDRESS);
        await(
                Duration.ofSeconds(60),
                () -> TERMINAL.contains(status(token, delivered)) && TERMINAL.contains(status(token, queried)));
        standaard().emailPermission(false);
        UUID refused = accept(token, "contract-" + UUID.randomUUID(), "iemand@example.nl");
        await(
                Duration.ofSeconds(30),
                () -> environment.notifyNl.wireMock().getAllServeEvents().stream()
                        .anyMatch(event -> event.getResponse().getStatus() == 400));
        standaard().reset();
        await(Duration.ofSeconds(60), () -> TERMINAL.contains(status(token, refused)));
        await(
                Duration.ofSeconds(30),
                () -> environment.notifyNl.wireMock().getAllServeEvents().stream()
                        .anyMatch(event -> event.getRequest().getUrl().startsWith("/v2/template/")));

        List<String> violations = contractViolations();
        assertThat(violations)
                .as("exchanges with NotifyNL outside api-spec/notifynl.yaml")
                .isEmpty();
    }

    private String status(String token, UUID id) {
        return http.get("/api/nmc/v1/notificaties/" + id, token)
                .json()
                .path("status")
                .asText();
    }

    private UUID accept(String token, String dvRef, String address) {
        Http.Response response = http.post(
                "/api/nmc/v1/decentraal/notificaties",
                token,
                Http.json(Map.of("dvRef", dvRef, "berichttype", TestNmc.BERICHTTYPE, "emailadres", address)));
        assertThat(response.status()).as(response.body()).isEqualTo(202);
        return UUID.fromString(response.json().path("id").asText());
    }

    private String operator() {
        return environment.iam.operatorToken("beheerder-conformance", Instant.now());
    }

    /** The ids of the parked send tasks of these notifications whose last error is trial mode. */
    private List<Long> parked(List<UUID> ids) {
        Set<String> wanted = new java.util.HashSet<>();
        ids.forEach(id -> wanted.add(id.toString()));
        List<Long> found = new ArrayList<>();
        long after = 0;
        while (true) {
            JsonNode page = http.get(
                            OPERATOR_BASE + "/taken?soort=verzenden&fout=notifynl-proefmodus&limit=500&na=" + after,
                            operator())
                    .json();
            for (JsonNode task : page.path("taken")) {
                if (wanted.contains(task.path("notificatie").asText())) {
                    found.add(task.path("id").asLong());
                }
            }
            if (page.path("volgende").isNull() || page.path("volgende").isMissingNode()) {
                return found;
            }
            after = page.path("volgende").asLong();
        }
    }

    private static void await(Duration timeout, BooleanSupplier condition) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (!condition.getAsBoolean()) {
            if (Instant.now().isAfter(deadline)) {
                return;
            }
            Thread.sleep(200);
        }
    }

    /** Every request to NotifyNL's simulator and its answer, validated against api-spec/notifynl.yaml. */
    private static List<String> contractViolations() throws IOException {
        OpenApiInteractionValidator contract = OpenApiInteractionValidator.createForInlineApiSpecification(
                        Files.readString(repository().resolve("api-spec/notifynl.yaml")))
                .build();
        List<String> violations = new ArrayList<>();
        List<ServeEvent> exchanges = environment.notifyNl.wireMock().getAllServeEvents();
        assertThat(exchanges).as("the NMC called NotifyNL").isNotEmpty();
        Set<String> operations = new java.util.TreeSet<>();
        for (ServeEvent exchange : exchanges) {
            var answered = exchange.getResponse();
            if (answered == null
                    || answered.getFault() != null
                    || exchange.getResponseDefinition().getFault() != null) {
                continue; // a fault a test put on top: no answer to check
            }
            var received = exchange.getRequest();
            SimpleRequest.Builder request = new SimpleRequest.Builder(
                    Request.Method.valueOf(received.getMethod().getName()), received.getUrl());
            for (HttpHeader header : received.getHeaders().all()) {
                request.withHeader(header.key(), header.values());
            }
            if (received.getBodyAsString() != null
                    && !received.getBodyAsString().isEmpty()) {
                request.withBody(received.getBodyAsString());
            }
            SimpleResponse.Builder response = SimpleResponse.Builder.status(answered.getStatus());
            for (HttpHeader header : answered.getHeaders().all()) {
                response.withHeader(header.key(), header.values());
            }
            if (answered.getBodyAsString() != null
                    && !answered.getBodyAsString().isEmpty()) {
                response.withBody(answered.getBodyAsString());
            }
            String path = received.getUrl().replaceAll("\\?.*$", "");
            operations.add(received.getMethod() + " "
                    + path.replaceAll("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "{id}") + " "
                    + answered.getStatus());
            ValidationReport report = contract.validate(request.build(), response.build());
            report.getMessages().stream()
                    .filter(message -> message.getLevel() == ValidationReport.Level.ERROR)
                    .forEach(message -> violations.add(received.getMethod() + " " + path + " -> " + answered.getStatus()
                            + ": " + message.getMessage()));
        }
        System.out.println("NOTIFYNL-CONTRACT: " + exchanges.size() + " exchanges validated: " + operations);
        assertThat(operations)
                .contains(
                        "POST /v2/notifications/email 201",
                        "POST /v2/notifications/email 400",
                        "GET /v2/notifications/{id} 200",
                        "GET /v2/template/{id} 200");
        return violations;
    }

    private static Path repository() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.isDirectory(dir.resolve("api-spec"))) {
            dir = dir.getParent();
        }
        return dir;
    }
}
