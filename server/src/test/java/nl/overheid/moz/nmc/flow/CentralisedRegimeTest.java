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
import nl.overheid.moz.nmc.testing.Http;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.PartiesStub;
import nl.overheid.moz.nmc.testing.TestLdv;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The centralised regime (design §9, seeds) against the Profielservice's real contract: the address comes from its
 * {@code POST /partij} at send time, narrowed to the DV and the berichttype's dienst, every call that processes
 * personal data is preceded by its LDV record, stored before the call (and a call that fails by an ERROR record), a party without a usable address ends {@code
 * niet-bezorgbaar geen-contactgegevens}, and after a permanent failure the address that bounced is deleted there.
 * The parties are WireMock stubs; the order of calls is read from WireMock's journal, into which every row the LDV
 * store acknowledged is mirrored at that moment ({@code JournaledLdv}).
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
        assertThat(lookup.path("identificatieType").asText()).isEqualTo("KVK");
        assertThat(lookup.path("identificatieNummer").asText()).isEqualTo(KVK);
        assertThat(lookup.path("dienstverlener").asText())
                .as("the DV's name at the Profielservice")
                .isEqualTo("DV A");
        assertThat(lookup.path("dienstNaam").asText())
                .as("the berichttype's dienst")
                .isEqualTo("Meldingen");
        assertThat(calls.get(1).getRequest().containsHeader("Authorization"))
                .as("the Profielservice has no authentication of its own")
                .isFalse();
        assertThat(calls.get(1).getRequest().containsHeader("Fsc-Grant-Hash"))
                .as("no FSC configured")
                .isFalse();
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
            assertThat(ldv.path("status").asText())
                    .as("processed without an internal error")
                    .isEqualTo("UNSET");
            assertThat(ldv.path("start_time").asLong())
                    .as("the moment of writing, on the NMC's clock, in epoch ms")
                    .isEqualTo(ldv.path("end_time").asLong())
                    .isEqualTo(clock.instant().toEpochMilli());
            assertThat(ldv.path("resource").path("service.name").asText()).isEqualTo("notificatiemanagementcomponent");
        }
        assertThat(body(calls.get(0)).path("span_id").asText())
                .isNotEqualTo(body(calls.get(2)).path("span_id").asText());

        String subject =
                query("SELECT ldv_betrokkene FROM notificatie WHERE id = ?", id).getFirst();
        assertThat(attribute(body(calls.get(0)), "dpl.core.data_subject_id")).isEqualTo(subject);
        assertThat(subject)
                .as("MOZa's pseudonym: Base64 of HMAC-SHA256 of the number under the LDV pepper")
                .isEqualTo(java.util.Base64.getEncoder().encodeToString(hmac(KVK)));
        assertThat(attribute(body(calls.get(0)), "dpl.core.data_subject_id_type"))
                .isEqualTo("KVK");
        assertThat(attribute(body(calls.get(0)), "dpl.core.processing_activity_id"))
                .isEqualTo(nl.overheid.moz.nmc.testing.TestNmc.PROCESSING_ACTIVITY);
        assertThat(attribute(body(calls.get(0)), "dpl.core.foreign_operation.processor"))
                .as("the party called")
                .isEqualTo(notify.baseUrl());
        assertThat(attribute(body(calls.get(2)), "dpl.core.foreign_operation.processor"))
                .isEqualTo(notify.baseUrl());
        assertThat(body(calls.get(0)).path("attributes").size())
                .as("nothing else: no FSC here")
                .isEqualTo(4);
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

    static Stream<Arguments> noUsableAddress() {
        UUID partij = UUID.randomUUID();
        return Stream.of(
                Arguments.of(
                        "its own 404",
                        aResponse()
                                .withStatus(404)
                                .withHeader("Content-Type", "application/problem+json")
                                .withBody(PartiesStub.PARTY_NOT_FOUND)),
                Arguments.of(
                        "its own 404 with type about:blank",
                        PartiesStub.problem(404, "Partij niet gevonden")
                                .withBody(
                                        "{\"type\":\"about:blank\",\"status\":404,\"title\":\"Partij niet gevonden\"}")),
                Arguments.of(
                        "contact data without an e-mail address", partij(partij, """
                        {"id": "%s", "type": "Telefoonnummer", "waarde": "0612345678", "isGeverifieerd": true,
                         "isDefault": true, "createdAt": "2026-01-01T00:00:00Z", "lastUpdated": "2026-01-01T00:00:00Z",
                         "scopes": []}""".formatted(UUID.randomUUID()))),
                Arguments.of("no contact data at all", partij(partij, "")),
                Arguments.of("only an unverified address", partij(partij, email(false, "[]"))),
                Arguments.of(
                        "only an address of another DV",
                        partij(partij, email(true, "[{\"dienstverlenerNaam\": \"DV B\", \"dienstNaam\": null}]"))),
                Arguments.of(
                        "only an address of another dienst of this DV",
                        partij(
                                partij,
                                email(
                                        true,
                                        "[{\"dienstverlenerNaam\": \"DV A\", \"dienstNaam\": \"Vergunningen\"}]"))));
    }

    private static ResponseDefinitionBuilder partij(UUID partij, String contactgegevens) {
        return aResponse()
                .withStatus(200)
                .withHeader("Content-Type", "application/json")
                .withBody("""
                        {"partijId": "%s", "identificaties": [{"identificatieType": "KVK", "identificatieNummer": "%s"}],
                         "voorkeuren": [], "contactgegevens": [%s]}""".formatted(partij, KVK, contactgegevens));
    }

    private static String email(boolean verified, String scopes) {
        return """
                {"id": "%s", "type": "Email", "waarde": "%s", "isGeverifieerd": %s, "isDefault": true,
                 "createdAt": "2026-01-01T00:00:00Z", "lastUpdated": "2026-01-01T00:00:00Z", "scopes": %s}""".formatted(UUID.randomUUID(), ADDRESS, verified, scopes);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("noUsableAddress")
    void aPartyWithoutAUsableAddressEndsNietBezorgbaarGeenContactgegevensWithoutASend(
            String answer, ResponseDefinitionBuilder response) {
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.LOOKUP_PATH))
                        .atPriority(1)
                        .willReturn(response));
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
                .as("no task left: its erasure is planned once it is due")
                .isEmpty();
    }

    static Stream<Arguments> profielserviceFaults() {
        return Stream.of(
                Arguments.of("500", PartiesStub.problem(500, "Internal Server Error")),
                Arguments.of("503", aResponse().withStatus(503)),
                Arguments.of("429", aResponse().withStatus(429).withHeader("Retry-After", "1")),
                Arguments.of("connection reset", aResponse().withFault(Fault.CONNECTION_RESET_BY_PEER)),
                Arguments.of(
                        "garbage",
                        aResponse()
                                .withStatus(200)
                                .withHeader("Content-Type", "application/json")
                                .withBody("{\"contactgegevens\": ")),
                Arguments.of(
                        "a 200 without contactgegevens",
                        aResponse()
                                .withStatus(200)
                                .withHeader("Content-Type", "application/json")
                                .withBody("{\"partijId\": \"" + UUID.randomUUID() + "\"}")),
                Arguments.of("a 404 of another title", PartiesStub.problem(404, "Not Found")),
                Arguments.of(
                        "a 404 of another type",
                        PartiesStub.problem(404, "Partij niet gevonden")
                                .withBody("{\"type\":\"https://elders.example/niet-gevonden\",\"status\":404,"
                                        + "\"title\":\"Partij niet gevonden\"}")),
                Arguments.of("a 404 without a problem", aResponse().withStatus(404)),
                Arguments.of(
                        "a 404 page of a gateway",
                        aResponse()
                                .withStatus(404)
                                .withHeader("Content-Type", "text/html")
                                .withBody("<html>Partij niet gevonden</html>")),
                Arguments.of(
                        "an FSC Outway's refusal",
                        aResponse()
                                .withStatus(400)
                                .withHeader("Fsc-Error-Code", "UNKNOWN_GRANT_HASH_IN_HEADER")
                                .withHeader("Content-Type", "application/json")
                                .withBody("{\"message\":\"x\",\"domain\":\"ERROR_DOMAIN_OUTWAY\","
                                        + "\"code\":\"UNKNOWN_GRANT_HASH_IN_HEADER\"}")),
                Arguments.of(
                        "400 with violations",
                        aResponse()
                                .withStatus(400)
                                .withHeader("Content-Type", "application/problem+json")
                                .withBody("{\"status\":400,\"title\":\"Bad Request\",\"violations\":[{\"field\":"
                                        + "\"identificatieNummer\",\"in\":\"body\",\"message\":\"x\"}]}")),
                Arguments.of(
                        "a slow drip past the deadline",
                        aResponse()
                                .withStatus(200)
                                .withHeader("Content-Type", "application/json")
                                .withBody(PartiesStub.partij(KVK, UUID.randomUUID(), ADDRESS))
                                .withChunkedDribbleDelay(20, 3000)),
                Arguments.of(
                        "an answer over the size cap",
                        partij(
                                UUID.randomUUID(),
                                String.join(
                                        ",",
                                        java.util.Collections.nCopies(
                                                10_000,
                                                email(
                                                        true,
                                                        "[{\"dienstverlenerNaam\": \"DV B\", \"dienstNaam\": null}]"))))));
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
        assertThat(sentAddress()).as("never an address from the wrong scope").isEqualTo(ADDRESS);
    }

    /** The address of the first send in the journal. */
    private String sentAddress() {
        return body(journal().stream()
                        .filter(call -> party(call).equals(SEND))
                        .findFirst()
                        .orElseThrow())
                .path("email_address")
                .asText();
    }

    /**
     * NotifyNL validates an address stripped of surrounding whitespace but stores and echoes in its receipt's
     * {@code to} what it was sent: an address the Profielservice holds with a trailing newline came back in a
     * receipt the callback refused (a 400 NotifyNL does not retry), so its outcome waited for reconciliation. The NMC
     * sends NotifyNL's own normal form of the address.
     */
    @Test
    void theAddressIsSentInNotifyNlsOwnNormalForm() {
        // JSON escapes in the stub's answer: a no-break space and a newline
        notify.profiel(KVK, " " + ADDRESS + "\\u00a0\\n");
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("verzonden:3");
        assertThat(sentAddress()).isEqualTo(ADDRESS);
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
                Arguments.of("out of disk", (Runnable) () -> TestLdv.get().failInserts("53100", "TRUE")),
                Arguments.of("the role refused", (Runnable) () -> TestLdv.get().refuseInserts()),
                Arguments.of("slow beyond its statement timeout", (Runnable)
                        () -> TestLdv.get().slowInserts(Duration.ofSeconds(3))));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("ldvFaults")
    void withoutAStoredLdvRecordNoPersonalDataIsProcessed(String fault, Runnable breakTheStore) {
        notify.profiel(KVK, ADDRESS);
        breakTheStore.run();
        UUID centraal = acceptCentraal(DV_REF, KVK, Map.of());
        UUID decentraal = accept("DOSSIER-4712", Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(journal()).as("no record, no call").isEmpty();
        assertThat(TestLdv.get().rows()).isEmpty();
        assertThat(pogingen(centraal)).containsExactly("1:gepland");
        assertThat(pogingen(decentraal)).containsExactly("1:gepland");
        assertThat(query("SELECT pogingenteller FROM taak WHERE soort = 'verzenden'", null))
                .containsOnly("0");

        TestLdv.get().heal();
        clock.advance(Duration.ofSeconds(11));
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(centraal)).isEqualTo("verzonden:3");
        assertThat(status(decentraal)).isEqualTo("verzonden:3");
        assertThat(journal())
                .extracting(CentralisedRegimeTest::party)
                .containsExactlyInAnyOrder(LDV, LOOKUP, LDV, SEND, LDV, SEND);
    }

    @Test
    void theLookupIsAcknowledgedButTheSendRecordIsNotSoNothingIsSent() {
        notify.profiel(KVK, ADDRESS);
        TestLdv.get().failInserts("53100", "NEW.name = 'nmc.notifynl.email-versturen'");
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(journal()).extracting(CentralisedRegimeTest::party).containsExactly(LDV, LOOKUP);
        assertThat(pogingen(id)).containsExactly("1:gepland");
        TestLdv.get().heal();
    }

    @Test
    void aLookupThatFailsLeavesAnErrorRecordForItsProcessing() {
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.LOOKUP_PATH))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(503)));
        acceptCentraal(DV_REF, KVK, Map.of());

        ManualRunner.of(nmc).runWorkersOnce();

        List<ServeEvent> calls = journal();
        assertThat(calls).extracting(CentralisedRegimeTest::party).containsExactly(LDV, LOOKUP, LDV);
        JsonNode record = body(calls.get(0));
        JsonNode error = body(calls.get(2));
        assertThat(error.path("status").asText()).isEqualTo("ERROR");
        assertThat(error.path("name").asText()).isEqualTo(record.path("name").asText());
        assertThat(error.path("parent_span_id").asText())
                .as("the ERROR record belongs to the processing's record")
                .isEqualTo(record.path("span_id").asText());
        assertThat(error.path("trace_id").asText())
                .isEqualTo(record.path("trace_id").asText());
        assertThat(attribute(error, "exception.type")).isEqualTo("http-503");
        assertThat(attribute(error, "dpl.core.data_subject_id"))
                .isEqualTo(attribute(record, "dpl.core.data_subject_id"));
    }

    @Test
    void aPermanentFailureDeletesTheAddressThatBouncedWithTheIdentificationInTheBody() {
        UUID id = sentWithAJournalClearedForItsReport();

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();
        clock.advance(Duration.ofMinutes(5));
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("niet-bezorgbaar:4");
        List<ServeEvent> all = journal();
        assertThat(all).extracting(CentralisedRegimeTest::party).containsExactly(LDV, LOOKUP, LDV, REPORT);
        assertThat(body(all.get(0)).path("name").asText())
                .as("first asked whether the contactgegeven is unchanged since the attempt went to it")
                .isEqualTo("nmc.profielservice.contactgegevens-opvragen");
        List<ServeEvent> calls = all.subList(2, 4);
        assertThat(body(calls.get(0)).path("name").asText()).isEqualTo("nmc.profielservice.emailadres-ongeldig-melden");
        assertThat(calls.get(1).getRequest().getMethod().getName()).isEqualTo("DELETE");
        assertThat(calls.get(1).getRequest().getUrl())
                .as("the contactgegeven the attempt went to")
                .isEqualTo(PartiesStub.REPORT_PATH + PartiesStub.contactgegevenId(KVK))
                .doesNotContain(KVK);
        JsonNode report = body(calls.get(1));
        assertThat(report.path("identificatieType").asText()).isEqualTo("KVK");
        assertThat(report.path("identificatieNummer").asText()).isEqualTo(KVK);
        assertThat(calls.get(1).getRequest().getHeader("Accept"))
                .as("the delete has no JSON body to accept (the real service answers application/json alone with 406)")
                .isEqualTo("application/problem+json");
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id))
                .as("no task left: its erasure is planned once it is due")
                .isEmpty();
        assertThat(query("SELECT contactgegeven_versleuteld IS NOT NULL FROM poging WHERE notificatie = ?", id))
                .as("kept only encrypted")
                .containsExactly("t");
    }

    /**
     * The Profielservice changes an address in place ({@code PUT /contactgegeven}: same id, new value), and its
     * delete checks no value. A business that corrected its address after the bounce, before the report ran (which
     * may wait days for the Profielservice), lost the corrected address to the report, and with its only address the
     * party itself. The report now asks first, and deletes only while the entry is unchanged (its {@code
     * lastUpdated}; the address itself is never stored).
     */
    @Test
    void anAddressCorrectedInPlaceSinceTheBounceIsNotDeleted() {
        UUID id = sentWithAJournalClearedForItsReport();
        notify.profiel(KVK, "gecorrigeerd@example.nl", "2026-12-02T08:00:00Z"); // the same contactgegeven id

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("niet-bezorgbaar:4");
        assertThat(journal())
                .extracting(CentralisedRegimeTest::party)
                .as("asked, not deleted")
                .containsExactly(LDV, LOOKUP);
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id)).isEmpty();
        assertThat(http.metric("nmc_invalid_address_reports_not_sent_total", "reden=\"contactgegeven-gewijzigd\"")
                        .orElse(0))
                .isEqualTo(1);
    }

    @Test
    void aReportWhoseLookupFailsLeavesAnErrorRecordAndWaitsNeverParked() {
        UUID id = sentWithAJournalClearedForItsReport();
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.LOOKUP_PATH))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(503)));

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        List<ServeEvent> calls = journal();
        assertThat(calls).extracting(CentralisedRegimeTest::party).containsExactly(LDV, LOOKUP, LDV);
        assertThat(body(calls.get(2)).path("status").asText()).isEqualTo("ERROR");
        assertThat(query(
                        "SELECT status || ':' || laatste_fout FROM taak WHERE notificatie = ? AND soort = 'ongeldig-melden'",
                        id))
                .containsExactly("open:profielservice-http-503");
    }

    @Test
    void aContactgegevenNoLongerOfferedToTheDvIsNotDeletedAndCounted() {
        UUID id = sentWithAJournalClearedForItsReport();
        notify.server()
                .stubFor(post(urlPathEqualTo(PartiesStub.LOOKUP_PATH))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(200)
                                .withHeader("Content-Type", "application/json")
                                .withHeader("API-Version", "1.0.0")
                                .withBody(PartiesStub.partij(KVK, UUID.randomUUID(), "ander@example.nl"))));
        double before = http.metric("nmc_invalid_address_reports_not_sent_total", "reden=\"contactgegeven-weg\"")
                .orElse(0);

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(journal()).extracting(CentralisedRegimeTest::party).containsExactly(LDV, LOOKUP);
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id)).isEmpty();
        assertThat(http.metric("nmc_invalid_address_reports_not_sent_total", "reden=\"contactgegeven-weg\"")
                        .orElse(0))
                .as("counted, never dropped silently")
                .isEqualTo(before + 1);
    }

    @Test
    void aContactgegevenTheProfielserviceNoLongerHasCountsAsDeleted() {
        notify.profiel(KVK, ADDRESS);
        notify.server()
                .stubFor(com.github.tomakehurst.wiremock.client.WireMock.delete(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching(
                                        PartiesStub.REPORT_PATH + ".+"))
                        .atPriority(1)
                        .willReturn(aResponse()
                                .withStatus(404)
                                .withHeader("Content-Type", "application/problem+json")
                                .withBody("{\"status\":404,\"title\":\"Contactgegeven niet gevonden\","
                                        + "\"detail\":\"Contactgegeven of partij niet gevonden.\"}")));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(journal())
                .extracting(CentralisedRegimeTest::party)
                .filteredOn(REPORT::equals)
                .hasSize(1);
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id))
                .as("no task left: its erasure is planned once it is due")
                .isEmpty();
    }

    @Test
    void aDelete404ThatIsNotTheProfielservicesOwnKeepsTheReportOpen() {
        notify.profiel(KVK, ADDRESS);
        notify.server()
                .stubFor(com.github.tomakehurst.wiremock.client.WireMock.delete(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching(
                                        PartiesStub.REPORT_PATH + ".+"))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(404).withBody("<html>not here</html>")));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(query(
                        "SELECT status || ':' || laatste_fout FROM taak WHERE notificatie = ? AND soort = 'ongeldig-melden'",
                        id))
                .containsExactly("open:profielservice-http-404");
    }

    @Test
    void withReportsOffNothingIsDeletedAndTheNeedIsCountedPerDv() {
        restartWithConfig("profielservice: {invalid-address-report: none}");
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        double before = http.metric(
                        "nmc_invalid_address_reports_not_sent_total",
                        "dv=\"" + nl.overheid.moz.nmc.testing.TestNmc.DV_A + "\",reden=\"instelling\"")
                .orElse(0);

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("niet-bezorgbaar:4");
        assertThat(journal()).extracting(CentralisedRegimeTest::party).doesNotContain(REPORT);
        assertThat(query("SELECT contactgegeven_versleuteld IS NULL FROM poging WHERE notificatie = ?", id))
                .as("no address id is kept when it is never reported")
                .containsExactly("t");
        assertThat(http.metric(
                                "nmc_invalid_address_reports_not_sent_total",
                                "dv=\"" + nl.overheid.moz.nmc.testing.TestNmc.DV_A + "\",reden=\"instelling\"")
                        .orElseThrow())
                .isEqualTo(before + 1);
        assertThat(query("SELECT soort FROM taak WHERE notificatie = ?", id)).isEmpty();
    }

    @Test
    void throughFscEveryCallCarriesTheGrantHashAndAFreshUuidV7TransactionId() {
        restartWithConfig("profielservice: {fsc: {grant-hash: '$1$4$dGVzdC1ncmFudA'}}");
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        List<ServeEvent> profiel = journal().stream()
                .filter(call -> party(call).equals(LOOKUP) || party(call).equals(REPORT))
                .toList();
        assertThat(profiel).hasSize(3).allSatisfy(call -> {
            assertThat(call.getRequest().getHeader("Fsc-Grant-Hash")).isEqualTo("$1$4$dGVzdC1ncmFudA");
            assertThat(nl.overheid.moz.nmc.outbound.UuidV7.is(call.getRequest().getHeader("Fsc-Transaction-Id")))
                    .isTrue();
            assertThat(call.getRequest().getProtocol()).isEqualTo("HTTP/1.1");
        });
        assertThat(profiel.get(0).getRequest().getHeader("Fsc-Transaction-Id"))
                .as("fresh per call")
                .isNotEqualTo(profiel.get(1).getRequest().getHeader("Fsc-Transaction-Id"));
    }

    /**
     * Through FSC the configured address is the NMC's own Outway, while the standard wants the record to name the
     * party processed for ({@code foreign_operation}: "URI verwijzend naar externe partij"): {@code ldv.processor.*}
     * names it.
     */
    @Test
    void throughFscTheRecordNamesTheConfiguredPartyNotTheOutway() {
        restartWithConfig("""
                profielservice: {fsc: {grant-hash: '$1$4$dGVzdC1ncmFudA'}}
                ldv: {processor: {profielservice: 'https://profielservice.moza.example/api', notifynl: 'urn:notifynl'}}
                """);
        notify.profiel(KVK, ADDRESS);
        acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        List<ServeEvent> calls = journal();
        assertThat(calls).extracting(CentralisedRegimeTest::party).containsExactly(LDV, LOOKUP, LDV, SEND);
        assertThat(attribute(body(calls.get(0)), "dpl.core.foreign_operation.processor"))
                .isEqualTo("https://profielservice.moza.example/api");
        assertThat(attribute(body(calls.get(2)), "dpl.core.foreign_operation.processor"))
                .isEqualTo("urn:notifynl");
    }

    @Test
    void anRsinOrABsnIsLookedUpWithItsType() {
        notify.profiel("123456782", ADDRESS);
        notify.profiel("111222333", "persoon@example.nl");
        UUID rsin = acceptCentraal("R-RSIN", "123456782", Map.of("identificatieType", "RSIN"));
        UUID bsn = acceptCentraal("R-BSN", "111222333", Map.of("identificatieType", "BSN"));
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(rsin)).isEqualTo("verzonden:3");
        assertThat(status(bsn)).isEqualTo("verzonden:3");
        assertThat(journal().stream()
                        .filter(call -> party(call).equals(LOOKUP))
                        .map(call -> body(call).path("identificatieType").asText() + ":"
                                + body(call).path("identificatieNummer").asText()))
                .containsExactlyInAnyOrder("RSIN:123456782", "BSN:111222333");
        assertThat(query("SELECT DISTINCT ldv_betrokkene_type FROM notificatie WHERE id IN (?)", rsin))
                .containsExactly("RSIN");
        assertThat(query("SELECT DISTINCT ldv_betrokkene_type FROM notificatie WHERE id IN (?)", bsn))
                .containsExactly("BSN");
        assertThat(journal().stream()
                        .filter(call -> party(call).equals(LDV))
                        .map(call -> attribute(body(call), "dpl.core.data_subject_id_type")))
                .as("the records name the identifier's type")
                .contains("RSIN", "BSN");
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
            public Call call(nl.overheid.moz.nmc.trace.Span span) {
                return parties.profielservice().call(span);
            }

            @Override
            public Lookup lookUp(
                    nl.overheid.moz.nmc.profiel.Identification party, String dienstverlener, String dienst, Call call) {
                Lookup answer = parties.profielservice().lookUp(party, dienstverlener, dienst, call);
                clock.advance(Duration.ofMinutes(2)); // a slow answer: geldig_tot passes meanwhile
                return answer;
            }

            @Override
            public Removal remove(UUID contactgegeven, nl.overheid.moz.nmc.profiel.Identification party, Call call) {
                return parties.profielservice().remove(contactgegeven, party, call);
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

    /**
     * The record of the look-up is written, then another claim takes the task before the call (a lease lost while the
     * log acknowledged): the look-up is not made here, and its record gets its ERROR child {@code not-called}, as a
     * send's does, so the log never claims a processing that did not happen.
     */
    @Test
    void aLookUpWhoseClaimIsLostAfterItsRecordLeavesANotCalledRecord() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        restartWith(parties -> parties.withLdv(new nl.overheid.moz.nmc.ldv.ProcessingLog() {
            @Override
            public Written record(Processing processing) {
                var written = parties.ldv().record(processing);
                if (processing.operation() == Operation.CONTACTGEGEVENS_OPVRAGEN) {
                    // another instance claims the task meanwhile
                    sql("UPDATE taak SET claim_epoch = claim_epoch + 1 WHERE soort = 'verzenden'");
                }
                return written;
            }

            @Override
            public void failed(Processing processing, String reason, java.time.Instant at) {
                parties.ldv().failed(processing, reason, at);
            }
        }));

        ManualRunner.of(nmc).runWorkersOnce();

        List<ServeEvent> calls = journal();
        assertThat(calls)
                .extracting(CentralisedRegimeTest::party)
                .as("the record, no look-up, and the ERROR record of the look-up that did not happen")
                .containsExactly(LDV, LDV);
        assertThat(body(calls.get(1)).path("status").asText()).isEqualTo("ERROR");
        assertThat(attribute(body(calls.get(1)), "exception.type")).isEqualTo("not-called");
        assertThat(pogingen(id)).containsExactly("1:gepland");
    }

    @Test
    void geldigTotPassingWhileTheLdvAcknowledgesTheSendsRecordStopsTheSend() {
        UUID id = accept(
                DV_REF,
                Map.of("geldigTot", clock.instant().plus(Duration.ofMinutes(1)).toString()));
        restartWith(parties -> parties.withLdv(new nl.overheid.moz.nmc.ldv.ProcessingLog() {
            @Override
            public Written record(Processing processing) {
                var written = parties.ldv().record(processing);
                if (processing.operation() == Operation.EMAIL_VERSTUREN) {
                    clock.advance(Duration.ofMinutes(2)); // a slow acknowledgement: geldig_tot passes meanwhile
                }
                return written;
            }

            @Override
            public void failed(Processing processing, String reason, java.time.Instant at) {
                parties.ldv().failed(processing, reason, at);
            }
        }));

        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("verlopen:3");
        List<ServeEvent> calls = journal();
        assertThat(calls)
                .extracting(CentralisedRegimeTest::party)
                .as("the record, and the ERROR record of the send that did not happen")
                .containsExactly(LDV, LDV);
        assertThat(body(calls.get(1)).path("status").asText()).isEqualTo("ERROR");
        assertThat(attribute(body(calls.get(1)), "exception.type")).isEqualTo("not-called");
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
        assertThat(journal()).extracting(CentralisedRegimeTest::party).containsExactly(LDV, LOOKUP, LDV, REPORT);
    }

    /**
     * Issue 18 §4 (ADR 0024: every permanent-failure of a centralised notification is followed by its report):
     * a bounce older than the delivered already applied changes nothing for the notification but is reported;
     * a later bounce of the same attempt (the same address) is not reported again.
     */
    @Test
    void anOlderBounceAndARepeatedBounceAreReportedOnce() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        java.time.Instant bounced = clock.instant();
        clock.advance(Duration.ofSeconds(10));
        receipt(id, 1, "delivered");
        assertThat(status(id)).isEqualTo("bezorgd:4");

        assertThat(postReceipt(receiptBody(
                                id, 1, "permanent-failure", UUID.randomUUID().toString(), bounced))
                        .status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkersOnce();
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).as("older than the delivered: no transition").isEqualTo("bezorgd:4");
        assertThat(reports()).as("but the address is reported").isEqualTo(1);

        clock.advance(Duration.ofMinutes(1));
        receipt(id, 1, "permanent-failure", UUID.randomUUID().toString());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("niet-bezorgbaar:5");
        assertThat(reports()).as("the same attempt's address, reported once").isEqualTo(1);
        assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ? AND soort = 'ongeldig-melden'", id))
                .containsExactly("0");
    }

    /** Issue 18 §4: a bounce after the MEBV period changes nothing for the DV but is reported. */
    @Test
    void aBounceAfterTheMebvPeriodIsStillReported() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "delivered");
        clock.advance(Duration.ofDays(8));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("definitief-bezorgd:5");
        notify.server().resetRequests();

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("definitief-bezorgd:5");
        assertThat(pogingen(id)).containsExactly("1:permanent-mislukt");
        assertThat(journal()).extracting(CentralisedRegimeTest::party).containsExactly(LDV, LOOKUP, LDV, REPORT);
    }

    /** Issue 18 §4: a bounce under a duplicate id of an attempt that no longer runs is reported (its address). */
    @Test
    void aBounceUnderADuplicateIdOfANonRunningAttemptIsReported() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "temporary-failure");
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(pogingen(id)).containsExactly("1:tijdelijk-mislukt", "2:verzonden");
        notify.server().resetRequests();

        clock.advance(Duration.ofMinutes(1));
        receipt(id, 1, "permanent-failure", UUID.randomUUID().toString());
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).as("attempt 2 still decides").isEqualTo("verzonden:4");
        assertThat(pogingen(id)).containsExactly("1:permanent-mislukt", "2:verzonden");
        assertThat(journal()).extracting(CentralisedRegimeTest::party).containsExactly(LDV, LOOKUP, LDV, REPORT);
    }

    /**
     * Issue 18 §4: each attempt's bounce is reported, also while the other attempt's report still waits (a report
     * was one per notification: the second was swallowed by the open first).
     */
    @Test
    void eachAttemptsBounceIsReportedAlsoWhileTheOtherReportWaits() {
        notify.profiel(KVK, ADDRESS);
        notify.server()
                .stubFor(com.github.tomakehurst.wiremock.client.WireMock.delete(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching(
                                        PartiesStub.REPORT_PATH + ".+"))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(503)));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "temporary-failure");
        ManualRunner.of(nmc).runWorkersOnce();
        clock.advance(Duration.ofMinutes(1));
        receipt(id, 1, "permanent-failure", UUID.randomUUID().toString());
        clock.advance(Duration.ofMinutes(1));
        receipt(id, 2, "permanent-failure");

        assertThat(status(id)).isEqualTo("niet-bezorgbaar:5");
        assertThat(query(
                        "SELECT p.nummer || ':' || t.status FROM taak t JOIN poging p ON p.id = t.poging "
                                + "WHERE t.notificatie = ? AND t.soort = 'ongeldig-melden' ORDER BY p.nummer",
                        id))
                .as("one report per attempt, both waiting for the Profielservice")
                .containsExactly("1:open", "2:open");
    }

    /**
     * Issue 18 §4: with every bounce reported, a report can wait beside a live notification; it must not hide a
     * lost reconcile task from the control duty.
     */
    @Test
    void aWaitingReportDoesNotHideALostReconciliationFromTheControlDuty() {
        notify.profiel(KVK, ADDRESS);
        notify.server()
                .stubFor(com.github.tomakehurst.wiremock.client.WireMock.delete(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching(
                                        PartiesStub.REPORT_PATH + ".+"))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(503)));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        receipt(id, 1, "temporary-failure");
        ManualRunner.of(nmc).runWorkersOnce();
        clock.advance(Duration.ofMinutes(1));
        receipt(id, 1, "permanent-failure", UUID.randomUUID().toString());
        assertThat(status(id)).isEqualTo("verzonden:4");
        execute("DELETE FROM taak WHERE notificatie = ? AND soort = 'reconcilieren'", id);

        ManualRunner.of(nmc).runDutiesOnce();

        assertThat(query("SELECT soort FROM taak WHERE notificatie = ? ORDER BY soort", id))
                .as("the waiting report beside the reconciliation the control duty planned again")
                .containsExactly("ongeldig-melden", "reconcilieren");
    }

    private long reports() {
        return journal().stream().filter(call -> party(call).equals(REPORT)).count();
    }

    private long lookUps() {
        return journal().stream().filter(call -> party(call).equals(LOOKUP)).count();
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
        notify.refuseAddress();
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

    /**
     * Issue 18 §5 (ADR 0024: "een uitstel na een fout in de aanroep van NotifyNL, de Profielservice of het LDV telt
     * niet mee"): a report the Profielservice keeps refusing is postponed with the engine's doubling backoff, capped
     * at a day, and never parked; the gauge shows how long the oldest report has waited. Once the Profielservice is
     * back the report is made.
     */
    @Test
    void aReportTheProfielserviceKeepsRefusingWaitsUpToADayAndIsNeverParked() {
        notify.profiel(KVK, ADDRESS);
        var outage = notify.server()
                .stubFor(com.github.tomakehurst.wiremock.client.WireMock.delete(
                                com.github.tomakehurst.wiremock.client.WireMock.urlPathMatching(
                                        PartiesStub.REPORT_PATH + ".+"))
                        .atPriority(1)
                        .willReturn(aResponse().withStatus(503)));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        double parkedBefore = http.metric("nmc_ongeldig_melden_parked_total").orElse(0);
        assertThat(postReceipt(receiptBody(id, 1, "permanent-failure")).status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERWERKEN);
        java.time.Instant planned = clock.instant();
        assertThat(status(id))
                .as("the DV's outcome does not wait for the report")
                .isEqualTo("niet-bezorgbaar:4");

        // more tries than the parking limit of before (50 postponements), most of them a day apart
        int rounds = 60;
        List<Long> waits = new ArrayList<>();
        for (int round = 1; round <= rounds; round++) {
            clock.advance(Duration.between(clock.instant(), reportDue(id)));
            ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.ONGELDIG_MELDEN);
            assertThat(query(
                            "SELECT status || ':' || coalesce(payload->>'uitstel', '0') FROM taak "
                                    + "WHERE notificatie = ? AND soort = 'ongeldig-melden'",
                            id))
                    .as("round %d", round)
                    .containsExactly("open:" + round);
            waits.add(Duration.between(clock.instant(), reportDue(id)).toSeconds());
        }
        List<Long> expected = new ArrayList<>();
        for (int postponement = 1; postponement <= rounds; postponement++) {
            expected.add(Math.min(
                    1L << Math.min(postponement - 1, 30), Duration.ofDays(1).toSeconds()));
        }
        assertThat(waits)
                .as("1 s, 2 s, 4 s, ... doubling, never more than a day")
                .isEqualTo(expected)
                .endsWith(86_400L, 86_400L);
        assertThat(http.metric("nmc_ongeldig_melden_parked_total").orElse(0))
                .as("never parked")
                .isEqualTo(parkedBefore);
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(http.metric("nmc_invalid_address_reports_oldest_waiting_seconds")
                        .orElseThrow())
                .as("the oldest waiting report's age")
                .isEqualTo((double) Duration.between(planned, clock.instant()).toSeconds());

        notify.server().removeStub(outage);
        clock.advance(Duration.between(clock.instant(), reportDue(id)));
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.ONGELDIG_MELDEN);
        assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ? AND soort = 'ongeldig-melden'", id))
                .as("made once the Profielservice is back")
                .containsExactly("0");
        assertThat(reports())
                .as("every refused try and the one that was acknowledged")
                .isEqualTo(rounds + 1);
        ManualRunner.of(nmc).runDutiesOnce();
        assertThat(http.metric("nmc_invalid_address_reports_oldest_waiting_seconds")
                        .orElseThrow())
                .isZero();
        assertThat(logs.text()).doesNotContain(KVK).doesNotContain(ADDRESS);
    }

    /**
     * Found by reading: the report task opened its notification without asking whether this instance holds the KEK
     * it was sealed under, so during a rolling deploy that added a KEK an older instance counted it as the NMC's own
     * failure and parked it after five rounds, the bounced address left in the profile. As the send task, it is now
     * postponed uncounted until an instance that holds the key takes it.
     */
    @Test
    void aReportSealedUnderAKekThisInstanceDoesNotHoldIsPostponedNotParked() {
        notify.profiel(KVK, ADDRESS);
        nl.overheid.moz.nmc.Nmc newer = startAnother(KEK_TWO_CURRENT);
        try {
            Http older = http;
            http = Http.of(newer);
            UUID id = acceptCentraal(DV_REF, KVK, Map.of());
            http = older;
            assertThat(query("SELECT kek_versie FROM notificatie WHERE id = ?", id))
                    .containsExactly("2");
            ManualRunner.of(newer).runWorkersOnce();
            assertThat(postReceipt(receiptBody(id, 1, "permanent-failure")).status())
                    .isEqualTo(200);
            ManualRunner.of(newer).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERWERKEN);
            double parkedBefore =
                    http.metric("nmc_ongeldig_melden_parked_total").orElse(0);
            for (int round = 0; round < 8; round++) {
                clock.advance(Duration.between(clock.instant(), reportDue(id)));
                ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.ONGELDIG_MELDEN);
            }
            assertThat(query(
                            "SELECT status || ':' || pogingenteller || ':' || laatste_fout FROM taak "
                                    + "WHERE notificatie = ? AND soort = 'ongeldig-melden'",
                            id))
                    .containsExactly("open:0:kek-onbekend");
            assertThat(reports()).as("nothing reported without the key").isZero();
            assertThat(http.metric("nmc_ongeldig_melden_parked_total").orElse(0))
                    .isEqualTo(parkedBefore);
            clock.advance(Duration.between(clock.instant(), reportDue(id)));
            ManualRunner.of(newer).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.ONGELDIG_MELDEN);
            assertThat(reports()).as("made by the instance that holds the key").isEqualTo(1);
            assertThat(query("SELECT count(*) FROM taak WHERE notificatie = ? AND soort = 'ongeldig-melden'", id))
                    .containsExactly("0");
        } finally {
            newer.close();
        }
    }

    /**
     * Found by reading: a resend whose look-up found no address after attempt 1's late delivered had made the
     * notification bezorgd marked its never-sent attempt permanently failed; when that delivery then bounced within
     * the MEBV period, the next claim took it as a resend made and failed, and ended the notification
     * niet-bezorgbaar onbereikbaar without asking the Profielservice. The attempt now stays planned, as it does when
     * the same delivered comes before the POST, and the resend looks the address up again.
     */
    @Test
    void aLateDeliveredDuringTheResendsLookUpLeavesItsAttemptForABounceAfter() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(postReceipt(receiptBody(id, 1, "temporary-failure")).status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERWERKEN);
        java.util.concurrent.atomic.AtomicBoolean armed = new java.util.concurrent.atomic.AtomicBoolean(true);
        com.github.tomakehurst.wiremock.stubbing.StubMapping[] gone =
                new com.github.tomakehurst.wiremock.stubbing.StubMapping[1];
        // attempt 1's delivered comes in and is processed while the resend looks up the address, and the party has
        // no address by the time it asks
        restartWith(parties -> parties.withLdv(onceAfterRecord(
                parties, nl.overheid.moz.nmc.ldv.ProcessingLog.Operation.CONTACTGEGEVENS_OPVRAGEN, armed, () -> {
                    processedMeanwhile(receiptBody(id, 1, "delivered"));
                    gone[0] = notify.server()
                            .stubFor(post(urlPathEqualTo(PartiesStub.LOOKUP_PATH))
                                    .atPriority(1)
                                    .willReturn(aResponse()
                                            .withStatus(404)
                                            .withHeader("Content-Type", "application/problem+json")
                                            .withBody(PartiesStub.PARTY_NOT_FOUND)));
                })));
        clock.advance(Duration.ofMinutes(5));
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERZENDEN);
        assertThat(armed).as("the resend reached its look-up").isFalse();
        assertThat(status(id)).startsWith("bezorgd:");
        assertThat(pogingen(id)).as("the resend was never sent").contains("2:gepland");

        // the delivery bounces within the MEBV period; the party has an address again
        notify.server().removeStub(gone[0]);
        clock.advance(Duration.ofHours(1));
        assertThat(postReceipt(receiptBody(id, 1, "temporary-failure")).status())
                .isEqualTo(200);
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERWERKEN);
        long lookUps = lookUps();
        ManualRunner.of(nmc).runWorkerOnce(nl.overheid.moz.nmc.engine.TaskKind.VERZENDEN);
        assertThat(lookUps()).as("the resend looks the address up").isEqualTo(lookUps + 1);
        assertThat(status(id)).startsWith("verzonden:");
        assertThat(pogingen(id)).contains("2:verzonden");
    }

    /** When the notification's invalid-address report is due next. */
    private java.time.Instant reportDue(UUID id) {
        return java.time.Instant.ofEpochSecond(
                0,
                1000L
                        * Long.parseLong(query(
                                        "SELECT CAST(extract(epoch FROM due) * 1000000 AS bigint) FROM taak "
                                                + "WHERE notificatie = ? AND soort = 'ongeldig-melden'",
                                        id)
                                .getFirst()));
    }

    @Test
    void everyExternalCallIsMadeUnderALeaseExtendedJustBeforeIt() {
        notify.profiel(KVK, ADDRESS);
        List<String> leases = restartWithSlowPartiesThatNoteTheLease();
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        leaseSubject = id;

        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("verzonden:3");
        assertThat(leases).as("the send: LDV, lookup, LDV, POST").hasSize(4);

        notify.status(notifyId(id, 1), "sending", null);
        clock.advance(Duration.ofMinutes(61));
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(leases).as("reconciliation: LDV, status query").hasSize(6);

        receipt(id, 1, "permanent-failure");
        ManualRunner.of(nmc).runWorkersOnce();
        assertThat(status(id)).isEqualTo("niet-bezorgbaar:4");
        assertThat(journal()).extracting(CentralisedRegimeTest::party).contains(REPORT);
        assertThat(leases)
                .as("the report: LDV, lookup (the entry unchanged since the send), LDV, delete")
                .hasSize(10);

        assertThat(leases)
                .as("seconds of lease left at each call (the engine's lease is 60 s)")
                .containsOnly("60");
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

    /** HMAC-SHA256 under the test's LDV pepper, as MOZa's {@code HashHelper} computes it. */
    private static byte[] hmac(String identifier) {
        try {
            javax.crypto.Mac mac = javax.crypto.Mac.getInstance("HmacSHA256");
            mac.init(new javax.crypto.spec.SecretKeySpec(nl.overheid.moz.nmc.testing.TestNmc.LDV_PEPPER, "HmacSHA256"));
            return mac.doFinal(identifier.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode body(ServeEvent call) {
        try {
            return MAPPER.readTree(call.getRequest().getBodyAsString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String attribute(JsonNode record, String key) {
        JsonNode value = record.path("attributes").path(key);
        if (value.isMissingNode()) {
            throw new AssertionError("no attribute " + key + " in " + record);
        }
        return value.asText();
    }

    /** A centralised notification sent to the party's one address, the journal cleared for what follows. */
    private UUID sentWithAJournalClearedForItsReport() {
        notify.profiel(KVK, ADDRESS);
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        notify.server().resetRequests();
        return id;
    }
}
