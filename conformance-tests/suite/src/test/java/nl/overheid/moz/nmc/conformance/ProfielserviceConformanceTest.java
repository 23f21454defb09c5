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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import nl.overheid.moz.nmc.simulator.NotifyNlSimulator;
import nl.overheid.moz.nmc.simulator.ProfielserviceSimulator;
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.TestDatabase;
import nl.overheid.moz.nmc.testing.TestNmc;
import org.junit.jupiter.api.Test;

/**
 * The centralised regime against the Profielservice simulator that plays the real service (and its FSC Outway):
 * each dev party ends as {@code conformance-tests/simulators/PROFIELSERVICE-DEV-DATA.md} says for DV A sending
 * {@code test-bericht} (dienst Meldingen), and NotifyNL's simulator receives exactly the address the rule picks —
 * the expected addresses are copied from that table, not computed. Then every request the NMC sent to the
 * Profielservice and every answer it got, in this whole test run, is validated against {@code
 * api-spec/profielservice.yaml} (the real contract's part the NMC uses) by Atlassian's validator, which is not
 * the code that produced either.
 */
class ProfielserviceConformanceTest {

    private static final ConformanceEnvironment environment = ConformanceEnvironment.get();
    private final Http http = Http.of(environment.nmc);

    /** One row of the dev-data table, for DV A / test-bericht. */
    private record Row(String type, String number, String status, String reden, String address) {}

    private static final List<Row> TABLE = List.of(
            new Row(
                    "KVK",
                    ProfielserviceSimulator.KVK_DELIVERED,
                    "definitief-bezorgd",
                    null,
                    "info@voorbeeldbedrijf.nl"),
            new Row(
                    "KVK",
                    ProfielserviceSimulator.KVK_TEMP_FAIL,
                    "niet-bezorgbaar",
                    "onbereikbaar",
                    "temp-fail@simulator.notify"),
            new Row("KVK", ProfielserviceSimulator.KVK_NO_EMAIL, "niet-bezorgbaar", "geen-contactgegevens", null),
            new Row(
                    "KVK",
                    ProfielserviceSimulator.KVK_SCOPE_DIENST,
                    "definitief-bezorgd",
                    null,
                    "standaard@alle-niveaus.nl"),
            new Row("KVK", ProfielserviceSimulator.KVK_SCOPE_DV, "definitief-bezorgd", null, "dva@dv-breed.nl"),
            new Row("KVK", ProfielserviceSimulator.KVK_DEFAULT, "definitief-bezorgd", null, "standaard@standaard.nl"),
            new Row(
                    "KVK",
                    ProfielserviceSimulator.KVK_UNSCOPED,
                    "definitief-bezorgd",
                    null,
                    "ongescoped@ongescoped.nl"),
            new Row("KVK", ProfielserviceSimulator.KVK_TIE, "definitief-bezorgd", null, "algemeen-nieuw@gelijkspel.nl"),
            new Row(
                    "KVK",
                    ProfielserviceSimulator.KVK_UNVERIFIED_ONLY,
                    "niet-bezorgbaar",
                    "geen-contactgegevens",
                    null),
            new Row(
                    "KVK",
                    ProfielserviceSimulator.KVK_UNVERIFIED_SKIPPED,
                    "definitief-bezorgd",
                    null,
                    "bevestigd@overgeslagen.nl"),
            new Row("KVK", ProfielserviceSimulator.KVK_OTHER_DV_ONLY, "niet-bezorgbaar", "geen-contactgegevens", null),
            new Row("KVK", ProfielserviceSimulator.KVK_VOORKEUR_ONLY, "niet-bezorgbaar", "geen-contactgegevens", null),
            new Row("KVK", ProfielserviceSimulator.KVK_DELETED, "niet-bezorgbaar", "geen-contactgegevens", null),
            new Row("KVK", ProfielserviceSimulator.KVK_UNKNOWN, "niet-bezorgbaar", "geen-contactgegevens", null),
            new Row(
                    "RSIN",
                    ProfielserviceSimulator.RSIN_DELIVERED,
                    "definitief-bezorgd",
                    null,
                    "info@voorbeeldstichting.nl"),
            new Row(
                    "BSN",
                    ProfielserviceSimulator.BSN_DELIVERED,
                    "definitief-bezorgd",
                    null,
                    "burger@voorbeeldpersoon.nl"));

    @Test
    void everyDevPartyEndsAsTheTableSaysAndEveryExchangeWithTheProfielserviceMatchesItsContract() throws Exception {
        String token = environment.token(TestNmc.DV_A);
        Map<UUID, Row> accepted = new LinkedHashMap<>();
        for (Row row : TABLE) {
            Http.Response response = http.post(
                    "/api/nmc/v1/centraal/notificaties",
                    token,
                    Http.json(Map.of(
                            "dvRef", "profiel-" + UUID.randomUUID(),
                            "berichttype", TestNmc.BERICHTTYPE,
                            "identificatieType", row.type(),
                            "identificatieNummer", row.number(),
                            "personalisation", Map.of("onderwerp", "Profielservice"))));
            assertThat(response.status()).as(response.body()).isEqualTo(202);
            accepted.put(UUID.fromString(response.json().path("id").asText()), row);
        }

        for (Map.Entry<UUID, Row> entry : accepted.entrySet()) {
            Row row = entry.getValue();
            JsonNode end = awaitTerminal(token, entry.getKey());
            assertThat(end.path("status").asText()).as(row.toString()).isEqualTo(row.status());
            if (row.reden() != null) {
                assertThat(end.path("reden").asText()).as(row.toString()).isEqualTo(row.reden());
            }
            Set<String> sentTo = addressesSentTo(entry.getKey());
            if (row.address() == null) {
                assertThat(sentTo).as("nothing sent for " + row).isEmpty();
            } else {
                assertThat(sentTo)
                        .as("NotifyNL got exactly the address the rule picks for " + row)
                        .containsExactly(row.address());
            }
        }

        List<String> violations = contractViolations();
        assertThat(violations)
                .as("exchanges with the Profielservice outside its contract")
                .isEmpty();
    }

    private JsonNode awaitTerminal(String token, UUID id) throws InterruptedException {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(60));
        Set<String> end = Set.of("definitief-bezorgd", "niet-bezorgbaar", "technisch-mislukt", "verlopen");
        while (true) {
            JsonNode body = http.get("/api/nmc/v1/notificaties/" + id, token).json();
            if (end.contains(body.path("status").asText()) || Instant.now().isAfter(deadline)) {
                return body;
            }
            Thread.sleep(100);
        }
    }

    /** Every address NotifyNL's simulator accepted an e-mail to for this notification (any attempt). */
    private static Set<String> addressesSentTo(UUID notificatie) {
        List<String> pogingen = TestDatabase.get().query("SELECT id FROM poging WHERE notificatie = ?", notificatie);
        Set<String> addresses = new java.util.TreeSet<>();
        for (NotifyNlSimulator.SentNotification sent : environment.notifyNl.sentNotifications()) {
            if (pogingen.contains(sent.reference())) {
                addresses.add(sent.emailAddress());
            }
        }
        return addresses;
    }

    /** Every request to the Profielservice and its answer, validated against api-spec/profielservice.yaml. */
    private static List<String> contractViolations() throws IOException {
        OpenApiInteractionValidator contract = OpenApiInteractionValidator.createForInlineApiSpecification(
                        Files.readString(repository().resolve("api-spec/profielservice.yaml")))
                .build();
        List<String> violations = new ArrayList<>();
        List<ServeEvent> exchanges =
                environment.parties.profielservice.wireMock().getAllServeEvents();
        assertThat(exchanges).as("the NMC called the Profielservice").isNotEmpty();
        for (ServeEvent exchange : exchanges) {
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
            var answered = exchange.getResponse();
            SimpleResponse.Builder response = SimpleResponse.Builder.status(answered.getStatus());
            for (HttpHeader header : answered.getHeaders().all()) {
                response.withHeader(header.key(), header.values());
            }
            if (answered.getBodyAsString() != null
                    && !answered.getBodyAsString().isEmpty()) {
                response.withBody(answered.getBodyAsString());
            }
            ValidationReport report = contract.validate(request.build(), response.build());
            report.getMessages().stream()
                    .filter(message -> message.getLevel() == ValidationReport.Level.ERROR)
                    .forEach(message -> violations.add(received.getMethod() + " " + received.getUrl() + " -> "
                            + answered.getStatus() + ": " + message.getMessage()));
        }
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
