package nl.overheid.moz.nmc.flow;

import static com.github.tomakehurst.wiremock.client.WireMock.aResponse;
import static com.github.tomakehurst.wiremock.client.WireMock.post;
import static com.github.tomakehurst.wiremock.client.WireMock.urlPathEqualTo;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.tomakehurst.wiremock.client.ResponseDefinitionBuilder;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import nl.overheid.moz.nmc.profiel.ProfielserviceClient;
import nl.overheid.moz.nmc.sending.NotifyNlClient;
import nl.overheid.moz.nmc.testing.ManualRunner;
import nl.overheid.moz.nmc.testing.PartiesStub;
import nl.overheid.moz.nmc.testing.TestLdv;
import org.junit.jupiter.api.Test;

/**
 * A failed call to a party is one WARNING an operator can act on: the call, its status or reason, the
 * notification's trace and what happens next. The parties answer with bodies that quote the e-mail address or the
 * KVK number (as NotifyNL's error messages may); none of it reaches the log, and nothing is logged at SEVERE.
 */
class FailedCallLogTest extends LifecycleTestBase {

    private static final String KVK = "12345670";
    private static final String SEND = "/v2/notifications/email";

    @Test
    void aNotifyNlOutageIsAWarningWithTheStatusAndTheTrace() {
        fail(SEND, answerQuoting(503, "$.email_address"));
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(warningOf(NotifyNlClient.class))
                .startsWith("NotifyNL POST /v2/notifications/email failed: HTTP 503 ")
                .contains("(trace " + traceId(id) + ", span ")
                .endsWith("the send is postponed");
        assertNoPersonalData(EMAIL);
    }

    @Test
    void aRefusedCredentialSaysWhatToCheck() {
        fail(SEND, answerQuoting(403, "$.email_address"));
        accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(warningOf(NotifyNlClient.class)).contains("HTTP 403 (check notifynl.services.standaard.api-key)");
        assertNoPersonalData(EMAIL);
    }

    @Test
    void aRefusalOfTheAddressIsAWarningThatNamesTheConsequence() {
        // NotifyNL lists every schema error at once; another one may quote a value of the request
        fail(
                SEND,
                aResponse()
                        .withStatus(400)
                        .withHeader("Content-Type", "application/json")
                        .withBody("{\"errors\":[{\"error\":\"ValidationError\",\"message\":\"email_address Not a valid"
                                + " email address\"},{\"error\":\"ValidationError\",\"message\":\"reference quoted: "
                                + "{{jsonPath request.body '$.email_address'}} is too long\"}],\"status_code\":400}")
                        .withTransformers("response-template"));
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).startsWith("niet-bezorgbaar");
        assertThat(warningOf(NotifyNlClient.class))
                .contains("HTTP 400")
                .contains(traceId(id))
                .contains("niet-bezorgbaar");
        assertNoPersonalData(EMAIL);
    }

    @Test
    void aRefusalTheNmcDoesNotKnowIsNotBlamedOnTheAddressAndIsOneWarningWithItsClass() {
        fail(SEND, answerQuoting(400, "$.email_address"));
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(status(id)).isEqualTo("in-verzending:2");
        assertThat(logs.of(NotifyNlClient.class))
                .as("the client leaves a refusal of the setup to the send pipeline")
                .allSatisfy(record -> assertThat(record.getLevel()).isEqualTo(Level.FINE));
        assertThat(warningOf(nl.overheid.moz.nmc.sending.SendPipeline.class))
                .startsWith("NotifyNL POST /v2/notifications/email failed: NotifyNL refused it for its setup: "
                        + "notifynl-weigering-onbekend")
                .contains("berichttype test-bericht of NotifyNL service standaard")
                .contains(traceId(id))
                .endsWith("(refusal 1 of 5 before it is parked)");
        assertNoPersonalData(EMAIL);
    }

    @Test
    void aBrokenConnectionIsAWarningWithTheKindOfFailure() {
        notify.breakConnections();
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(warningOf(NotifyNlClient.class))
                .contains("failed: no usable answer (")
                .contains(traceId(id));
        assertNoPersonalData(EMAIL);
    }

    @Test
    void aProfielserviceFailureIsAWarningWithoutTheKvkNumber() {
        fail(PartiesStub.LOOKUP_PATH, answerQuoting(500, "$.identificatieNummer"));
        UUID id = acceptCentraal(DV_REF, KVK, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();

        assertThat(warningOf(ProfielserviceClient.class))
                .startsWith("Profielservice POST /partij failed: HTTP 500 ")
                .contains(traceId(id))
                .endsWith("the send is postponed");
        assertNoPersonalData(KVK);
    }

    @Test
    void anLdvFailureIsAWarningThatNamesTheRecordAndTheCallThatWaits() throws Exception {
        // the store's error quotes the row, as a driver's message would: it must not reach the log
        TestLdv.get().failInserts("53100", "TRUE");
        UUID id = accept(DV_REF, Map.of());
        ManualRunner.of(nmc).runWorkersOnce();
        TestLdv.get().heal();

        assertThat(warningOf(Class.forName("nl.overheid.moz.nmc.ldv.LdvSpanExporter")))
                .startsWith("the processing log did not store 1 record(s) ([nmc.notifynl.email-versturen " + traceId(id)
                        + ":")
                .contains("disk-full")
                .contains("SQLState 53100")
                .contains("the call it records does not happen");
        assertThat(notify.server()
                        .findAll(
                                com.github.tomakehurst.wiremock.client.WireMock.postRequestedFor(urlPathEqualTo(SEND))))
                .as("no record, no call")
                .isEmpty();
        assertThat(http.metric("nmc_ldv_write_failures_total", "fout=\"disk-full\"")
                        .orElse(0))
                .isPositive();
        assertNoPersonalData(EMAIL);
        assertThat(logs.text())
                .doesNotContain(query("SELECT ldv_betrokkene FROM notificatie WHERE id = ?", id)
                        .getFirst());
    }

    /** The one record of this class's logger, which must be a WARNING; its message. */
    private String warningOf(Class<?> client) {
        List<LogRecord> records = logs.of(client);
        assertThat(records).as("records of " + client.getSimpleName()).hasSize(1);
        assertThat(records.getFirst().getLevel()).isEqualTo(Level.WARNING);
        assertThat(records.getFirst().getThrown())
                .as("no exception, whose message may quote the call")
                .isNull();
        return records.getFirst().getMessage();
    }

    private void assertNoPersonalData(String personal) {
        assertThat(logs.text())
                .doesNotContain(personal)
                .doesNotContain(SECRET_TEXT)
                .doesNotContain(DV_REF)
                .doesNotContain("quoted:");
        assertThat(logs.records())
                .allSatisfy(record -> assertThat(record.getLevel().intValue())
                        .as(record.getMessage())
                        .isLessThan(Level.SEVERE.intValue()));
    }

    private String traceId(UUID id) {
        return query("SELECT trace_id FROM notificatie WHERE id = ?", id).getFirst();
    }

    private void fail(String path, ResponseDefinitionBuilder answer) {
        notify.server().stubFor(post(urlPathEqualTo(path)).atPriority(1).willReturn(answer));
    }

    /** An error answer whose body quotes a field of the request, as an error message of the party may. */
    private static ResponseDefinitionBuilder answerQuoting(int status, String field) {
        return aResponse()
                .withStatus(status)
                .withHeader("Content-Type", "application/json")
                .withBody("{\"errors\":[{\"error\":\"Error\",\"message\":\"quoted: {{jsonPath request.body '" + field
                        + "'}}\"}],\"status_code\":" + status + "}")
                .withTransformers("response-template");
    }
}
