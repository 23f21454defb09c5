package nl.overheid.moz.nmc.flow;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import com.github.tomakehurst.wiremock.http.Fault;
import com.github.tomakehurst.wiremock.stubbing.ServeEvent;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.PartiesStub;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The centralised regime (design §9, seeds): the address comes from the Profielservice at send time, every
 * call that processes personal data is preceded by an acknowledged LDV record, a party without an address
 * ends {@code niet-bezorgbaar geen-contactgegevens}, and a permanent failure is reported to the
 * Profielservice. The parties are WireMock stubs; the order of calls is read from WireMock's journal.
 */
class CentralisedRegimeTest extends LifecycleTestBase {

    private static final String KVK = "12345670";
    private static final String ADDRESS = "ondernemer.centraal@bedrijf.example";
    private static final ObjectMapper MAPPER = new ObjectMapper();

    private static final String LDV = "LDV";
    private static final String LOOKUP = "LOOKUP";
    private static final String REPORT = "REPORT";
    private static final String SEND = "SEND";

    @Test
    void theAddressComesFromTheProfielserviceAfterAnLdvRecordAndTheNumberTravelsOnlyInBodies() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("verzonden:3");
        List<ServeEvent> calls = journal();
        assertThat(calls).extracting(CentralisedRegimeTest::party).containsExactly(LDV, LOOKUP, LDV, SEND);

        JsonNode lookup = body(calls.get(1));
        assertThat(lookup.path("identificerendNummer").asText()).isEqualTo(KVK);
        assertThat(lookup.path("soort").asText()).isEqualTo("kvk");
        assertThat(calls.get(1).getRequest().getHeader("Authorization")).isEqualTo("Bearer test-profielservice-token");
        assertThat(body(calls.get(3)).path("email_address").asText())
                .as("the looked-up address is sent to")
                .isEqualTo(ADDRESS);
        assertThat(calls)
                .allSatisfy(call -> assertThat(call.getRequest().getUrl()).doesNotContain(KVK));

        // Each record precedes its call within the notification's trace, as a child of the acceptance.
        String traceId =
                query("SELECT trace_id FROM notificatie WHERE id = ?", id).getFirst();
        String acceptanceSpan = query("SELECT aanname_span_id FROM notificatie WHERE id = ?", id)
                .getFirst();
        assertThat(body(calls.get(0)).path("name").asText()).isEqualTo("nmc.profielservice.contactgegevens-opvragen");
        assertThat(body(calls.get(2)).path("name").asText()).isEqualTo("nmc.notifynl.email-versturen");
        for (int record : new int[] {0, 2}) {
            JsonNode ldv = body(calls.get(record));
            assertThat(ldv.path("trace_id").asText()).isEqualTo(traceId);
            assertThat(ldv.path("parent_span_id").asText()).isEqualTo(acceptanceSpan);
            assertThat(calls.get(record + 1).getRequest().getHeader("traceparent"))
                    .as("the call carries the span its record is about")
                    .isEqualTo("00-" + traceId + "-" + ldv.path("span_id").asText() + "-01");
            assertThat(calls.get(record).getRequest().getHeader("Authorization"))
                    .isEqualTo("Bearer test-ldv-token");
        }
        assertThat(body(calls.get(0)).path("span_id").asText())
                .isNotEqualTo(body(calls.get(2)).path("span_id").asText());

        String subject =
                query("SELECT ldv_betrokkene FROM notificatie WHERE id = ?", id).getFirst();
        assertThat(attribute(body(calls.get(0)), "dpl.core.data_subject_id")).isEqualTo(subject);
        assertThat(attribute(body(calls.get(0)), "dpl.core.data_subject_id_type"))
                .isNotBlank();
        assertThat(attribute(body(calls.get(0)), "dpl.core.processing_activity_id"))
                .isNotBlank();
        assertThat(subject).as("a pseudonym, not the number").doesNotContain(KVK);
        for (int record : new int[] {0, 2}) {
            assertThat(calls.get(record).getRequest().getBodyAsString())
                    .doesNotContain(KVK)
                    .doesNotContain(ADDRESS)
                    .doesNotContain(DV_REF)
                    .doesNotContain(SECRET_TEXT);
        }
    }

    @Test
    void theSamePartyHasTheSamePseudonymInTheLogbookAndAnotherPartyAnother() {
        notify.profiel(KVK, ADDRESS);
        notify.profiel("87654321", "ander@bedrijf.example");
        acceptCentraal("R-1", KVK, Map.of());
        acceptCentraal("R-2", KVK, Map.of());
        acceptCentraal("R-3", "87654321", Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        List<String> subjects = journal().stream()
                .filter(call -> party(call).equals(LDV))
                .map(call -> attribute(body(call), "dpl.core.data_subject_id"))
                .distinct()
                .toList();
        assertThat(subjects).hasSize(2);
    }

    @ParameterizedTest
    @ValueSource(strings = {"onbekende-partij", "geen-emailvoorkeur"})
    void aPartyWithoutAnAddressEndsNietBezorgbaarGeenContactgegevensWithoutASend(String problemType) {
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.LOOKUP_PATH))
                        .atPriority(1)
                        .willReturn(PartiesStub.problem(404, problemType)));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());

        ManualRunner.of(nmc).runWorkersOnce();
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("niet-bezorgbaar:3");
        assertThat(http.get("/api/nmc/v1/notificaties/" + id, tokenA())
                        .json()
                        .path("reden")
                        .asText())
                .isEqualTo("geen-contactgegevens");
        assertThat(pogingen(id)).containsExactly("1:permanent-mislukt");
        assertThat(journal())
                .extracting(CentralisedRegimeTest::party)
                .containsExactly(LDV, LOOKUP)
                .as("no address: nothing to report invalid either");
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id))
                .as("only its erasure waits")
                .containsExactly("wissen");
    }

    static Stream<Arguments> profielserviceFaults() {
        return Stream.of(
                Arguments.of("503", aResponse().withStatus(503)),
                Arguments.of("429", aResponse().withStatus(429).withHeader("Retry-After", "1")),
                Arguments.of("connection reset", aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)),
                Arguments.of(
                        "garbage",
                        aResponse()
                                .withStatus(200)
                                .withHeader("Content-Type", "application/json")
                                .withBody("{\"emailadres\": ")),
                Arguments.of(
                        "200 without an address",
                        aResponse()
                                .withStatus(200)
                                .withHeader("Content-Type", "application/json")
                                .withBody("{}")),
                Arguments.of("404 of a type outside the contract", PartiesStub.problem(404, "iets-anders")),
                Arguments.of("404 without a problem", aResponse().withStatus(404)),
                Arguments.of("400", PartiesStub.problem(400, "ongeldige-aanvraag")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("profielserviceFaults")
    void aProfielserviceThatCannotAnswerPostponesWithoutCountingAnAttemptAndTheSameAttemptGoesOutLater(
            String fault, ResponseDefinitionBuilder answer) {
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.LOOKUP_PATH))
                        .atPriority(1)
                        .willReturn(answer));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("in-verzending:2");
        assertThat(pogingen(id)).containsExactly("1:gepland");
        assertThat(journal()).extracting(CentralisedRegimeTest::party).doesNotContain(SEND);
        assertThat(query(
                        "SELECT pogingenteller || ':' || (laatste_fout IS NOT NULL) FROM taak WHERE notificatie = ?",
                        id))
                .as("a failure of a party is not an NMC failure")
                .containsExactly("0:true");
        assertThat(logs.text()).doesNotContain(KVK);

        notify.reset();
        notify.profiel(KVK, ADDRESS);
        clock.advance(Duration.ofSeconds(11));
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("verzonden:3");
        assertThat(pogingen(id)).containsExactly("1:verzonden");
    }

    @Test
    void aProfielserviceOutageUntilGeldigTotEndsVerlopen() {
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.LOOKUP_PATH))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(503)));
        UUID id = acceptCentraal(
                DV_REF,
                KVK,
                Map.of("geldigTot", clock.instant().plus(Duration.ofMinutes(1)).toString()));
        for (int round = 0; round < 5; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofSeconds(11));
        }
        assertThat(status(id)).isEqualTo("in-verzending:2");

        clock.advance(Duration.ofMinutes(1));
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("verlopen:3");
        assertThat(journal()).extracting(CentralisedRegimeTest::party).doesNotContain(SEND);
    }

    static Stream<Arguments> ldvFaults() {
        return Stream.of(
                Arguments.of("503", aResponse().withStatus(503)),
                Arguments.of("connection reset", aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)),
                Arguments.of(
                        "201 without an id",
                        aResponse()
                                .withStatus(201)
                                .withHeader("Content-Type", "application/json")
                                .withBody("{}")),
                Arguments.of(
                        "201 with garbage",
                        aResponse()
                                .withStatus(201)
                                .withHeader("Content-Type", "application/json")
                                .withBody("<html>")),
                Arguments.of(
                        "400",
                        aResponse()
                                .withStatus(400)
                                .withHeader("Content-Type", "application/problem+json")
                                .withBody("{\"title\": \"x\", \"status\": 400}")),
                Arguments.of(
                        "200 instead of the 201 of an acknowledgement",
                        aResponse()
                                .withStatus(200)
                                .withHeader("Content-Type", "application/json")
                                .withBody("{\"id\": \"x-y\"}")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ldvFaults")
    void withoutAnAcknowledgedLdvRecordNoPersonalDataIsProcessed(String fault, ResponseDefinitionBuilder answer) {
        notify.profiel(KVK, ADDRESS);
        notify.server()
                .stubFor(
                        post(urlPathEqualTo(PartiesStub.LDV_PATH)).atPriority(1).willReturn(answer));
        UUID centraal = acceptCentraal(DV_REF, KVK, Map.of());
        UUID decentraal = accept("DOSSIER-4712", Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(journal()).extracting(CentralisedRegimeTest::party).containsOnly(LDV);
        assertThat(pogingen(centraal)).containsExactly("1:gepland");
        assertThat(pogingen(decentraal)).containsExactly("1:gepland");
        assertThat(query("SELECT pogingenteller FROM taak WHERE soort = 'verzenden'", null))
                .containsOnly("0");

        notify.reset();
        notify.profiel(KVK, ADDRESS);
        clock.advance(Duration.ofSeconds(11));
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(centraal)).isEqualTo("verzonden:3");
        assertThat(status(decentraal)).isEqualTo("verzonden:3");
    }

    @Test
    void theLookupIsAcknowledgedButTheSendRecordIsNotSoNothingIsSent() {
        notify.profiel(KVK, ADDRESS);
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.LDV_PATH))
                        .atPriority(1)
                        .withRequestBody(com.github.tomakehurst.wiremock.client.WireMock.containing("email-versturen"))
                        .willReturn(aResponse().withStatus(503)));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(journal()).extracting(CentralisedRegimeTest::party).containsExactly(LDV, LOOKUP, LDV);
        assertThat(pogingen(id)).containsExactly("1:gepland");
    }

    @Test
    void aPermanentFailureIsReportedOnceWithTheNumberInTheBodyAndTheNotificationAsReportId() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        notify.server().resetRequests();

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();
        clock.advance(Duration.ofMinutes(5));
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("niet-bezorgbaar:4");
        List<ServeEvent> calls = journal();
        assertThat(calls).extracting(CentralisedRegimeTest::party).containsExactly(LDV, REPORT);
        assertThat(body(calls.get(0)).path("name").asText()).isEqualTo("nmc.profielservice.emailadres-ongeldig-melden");
        JsonNode report = body(calls.get(1));
        assertThat(report.path("meldingId").asText()).isEqualTo(id.toString());
        assertThat(report.path("identificerendNummer").asText()).isEqualTo(KVK);
        assertThat(report.path("soort").asText()).isEqualTo("kvk");
        assertThat(report.path("kanaal").asText()).isEqualTo("email");
        assertThat(report.path("reden").asText()).isNotBlank();
        assertThat(calls.get(1).getRequest().getUrl()).doesNotContain(KVK);
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id))
                .as("only its erasure waits")
                .containsExactly("wissen");
    }

    @Test
    void aReportTheProfielserviceKnewAlreadyCountsAsReported() {
        notify.profiel(KVK, ADDRESS);
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.REPORT_PATH))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(200)
                                .withHeader("Content-Type", "application/json")
                                .withBody("{\"meldingId\": \"{{jsonPath request.body '$.meldingId'}}\"}")
                                .withTransformers("response-template")));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(journal())
                .extracting(CentralisedRegimeTest::party)
                .filteredOn(REPORT::equals)
                .hasSize(1);
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id))
                .as("only its erasure waits")
                .containsExactly("wissen");
    }

    @Test
    void aReportAcknowledgedUnderAnotherIdIsNotAnAcknowledgement() {
        notify.profiel(KVK, ADDRESS);
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.REPORT_PATH))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(201)
                                .withHeader("Content-Type", "application/json")
                                .withBody("{\"meldingId\": \"" + UUID.randomUUID() + "\"}")));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(query(
                        "SELECT status || ':' || laatste_fout FROM taak WHERE notificatie = ? AND soort = 'ongeldig-melden'",
                        id))
                .containsExactly("open:profielservice-contract");
    }

    @Test
    void aReportThatKeepsFailingInsideTheNmcIsParkedAndCountedToo() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        double parkedBefore = http.metric("nmc_ongeldig_melden_parked_total").orElse(0);
        assertThat(postReceipt(receiptBody(id, 1, "permanent-failure")).status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERWERKEN);
        // The data key can no longer be unwrapped: an NMC-internal failure at every try.
        execute("UPDATE notificatie SET datasleutel_gewrapt = '\\x00' WHERE id = ?", id);

        for (int round = 0; round < 7; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofSeconds(11));
        }

        assertThat(query("SELECT status FROM taak WHERE notificatie = ? AND soort = 'ongeldig-melden'", id))
                .containsExactly("mislukt");
        assertThat(http.metric("nmc_ongeldig_melden_parked_total").orElseThrow())
                .isEqualTo(parkedBefore + 1);
        assertThat(journal()).extracting(CentralisedRegimeTest::party).doesNotContain(REPORT);
    }

    @Test
    void geldigTotPassingWhileTheProfielserviceAnswersStopsTheSend() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(
                DV_REF,
                KVK,
                Map.of("geldigTot", clock.instant().plus(Duration.ofMinutes(1)).toString()));
        restartWith(parties -> parties.withProfielservice(new nl.overheid.moz.nmc.profiel.Profielservice() {
            @Override
            public Lookup lookUp(String kvkNummer, nl.overheid.moz.nmc.trace.Span span) {
                Lookup answer = parties.profielservice().lookUp(kvkNummer, span);
                clock.advance(Duration.ofMinutes(2)); // a slow answer: geldig_tot passes meanwhile
                return answer;
            }

            @Override
            public Report reportInvalid(UUID reportId, String kvkNummer, nl.overheid.moz.nmc.trace.Span span) {
                return parties.profielservice().reportInvalid(reportId, kvkNummer, span);
            }
        }));

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("verlopen:3");
        assertThat(journal())
                .extracting(CentralisedRegimeTest::party)
                .as("no send, and no record of one")
                .containsExactly(LDV, LOOKUP);
        assertThat(pogingen(id)).containsExactly("1:gepland");
    }

    @Test
    void geldigTotPassingWhileTheLdvAcknowledgesTheSendsRecordStopsTheSend() {
        UUID id = accept(
                DV_REF,
                Map.of("geldigTot", clock.instant().plus(Duration.ofMinutes(1)).toString()));
        restartWith(parties -> parties.withLdv(processing -> {
            var written = parties.ldv().record(processing);
            if (processing.operation() == nl.overheid.moz.nmc.ldv.ProcessingLog.Operation.EMAIL_VERSTUREN) {
                clock.advance(Duration.ofMinutes(2)); // a slow acknowledgement: geldig_tot passes meanwhile
            }
            return written;
        }));

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("verlopen:3");
        assertThat(journal()).extracting(CentralisedRegimeTest::party).containsExactly(LDV);
    }

    @Test
    void aFailureWithinTheMebvPeriodIsReportedToo() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "delivered");
        clock.advance(Duration.ofDays(2));
        notify.server().resetRequests();

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("niet-bezorgbaar:5");
        assertThat(journal()).extracting(CentralisedRegimeTest::party).containsExactly(LDV, REPORT);
    }

    @Test
    void aFailedResendIsNotReportedButAFinalTemporaryFailureIsNotAnInvalidAddressEither() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "temporary-failure");
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 2, "temporary-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("niet-bezorgbaar:5");
        assertThat(journal()).extracting(CentralisedRegimeTest::party).doesNotContain(REPORT);
    }

    @Test
    void notifyNlRefusingTheRequestIsNotAnInvalidAddress() {
        notify.profiel(KVK, ADDRESS);
        notify.answer(400, "BadRequestError");
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("niet-bezorgbaar:3");
        assertThat(journal()).extracting(CentralisedRegimeTest::party).doesNotContain(REPORT);
    }

    @Test
    void aDecentralisedPermanentFailureIsNotReported() {
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("niet-bezorgbaar:4");
        assertThat(journal()).extracting(CentralisedRegimeTest::party).doesNotContain(LOOKUP, REPORT);
    }

    @Test
    void aReportTheProfielserviceKeepsRefusingIsParkedForAnOperatorAndCounted() {
        notify.profiel(KVK, ADDRESS);
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.REPORT_PATH))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(503)));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        double parkedBefore = http.metric("nmc_ongeldig_melden_parked_total").orElse(0);

        receipt(id, 1, "permanent-failure");
        for (int round = 0; round < 6; round++) {
            ManualRunner.of(nmc).runWorkersOnce();
            clock.advance(Duration.ofSeconds(11));
        }

        assertThat(status(id))
                .as("the DV's outcome does not wait for the report")
                .isEqualTo("niet-bezorgbaar:4");
        assertThat(query(
                        "SELECT status || ':' || laatste_fout FROM taak WHERE notificatie = ? "
                                + "AND soort = 'ongeldig-melden'",
                        id))
                .singleElement()
                .asString()
                .startsWith("mislukt:");
        assertThat(journal())
                .extracting(CentralisedRegimeTest::party)
                .filteredOn(REPORT::equals)
                .as("the first try and three postponements")
                .hasSize(4);
        assertThat(http.metric("nmc_ongeldig_melden_parked_total").orElseThrow())
                .isEqualTo(parkedBefore + 1);
        assertThat(logs.text()).doesNotContain(KVK).doesNotContain(ADDRESS);
    }

    @Test
    void noNumberOrAddressReachesTheTablesOrTheLogs() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.LOOKUP_PATH))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(503)));
        acceptCentraal("DOSSIER-4712", KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        String stored = String.join("\n", query("""
                SELECT row_to_json(e)::text FROM event e
                UNION ALL SELECT row_to_json(t)::text FROM taak t
                UNION ALL SELECT row_to_json(o)::text FROM ontvangst o
                UNION ALL SELECT row_to_json(p)::text FROM poging p
                UNION ALL SELECT row_to_json(n)::text FROM notificatie n
                """, null));
        assertThat(stored)
                .isNotBlank()
                .doesNotContain(KVK)
                .doesNotContain(ADDRESS)
                .doesNotContain(DV_REF)
                .doesNotContain(SECRET_TEXT);
        assertThat(logs.text())
                .doesNotContain(KVK)
                .doesNotContain(ADDRESS)
                .doesNotContain(DV_REF)
                .doesNotContain(SECRET_TEXT);
        assertThat(journal())
                .filteredOn(call -> party(call).equals(LDV))
                .isNotEmpty()
                .allSatisfy(call -> assertThat(call.getRequest().getBodyAsString())
                        .doesNotContain(KVK)
                        .doesNotContain(ADDRESS)
                        .doesNotContain(DV_REF)
                        .doesNotContain(SECRET_TEXT));
    }

    /** The calls WireMock received, oldest first. */
    private List<ServeEvent> journal() {
        List<ServeEvent> calls = new ArrayList<>(notify.server().getAllServeEvents());
        java.util.Collections.reverse(calls);
        return calls;
    }

    private static String party(ServeEvent call) {
        String path = call.getRequest().getUrl();
        if (path.startsWith(PartiesStub.LDV_PATH)) {
            return LDV;
        } else if (path.startsWith(PartiesStub.LOOKUP_PATH)) {
            return LOOKUP;
        } else if (path.startsWith(PartiesStub.REPORT_PATH)) {
            return REPORT;
        } else if (path.startsWith("/v2/notifications/email")) {
            return SEND;
        }
        return call.getRequest().getMethod() + " " + path;
    }

    private static JsonNode body(ServeEvent call) {
        try {
            return MAPPER.readTree(call.getRequest().getBodyAsString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String attribute(JsonNode record, String key) {
        for (JsonNode attribute : record.path("attributes")) {
            if (attribute.path("key").asText().equals(key)) {
                return attribute.path("value").asText();
            }
        }
        throw new AssertionError("no attribute " + key + " in " + record);
    }
}
