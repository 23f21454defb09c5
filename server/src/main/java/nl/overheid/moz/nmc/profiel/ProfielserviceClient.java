package nl.overheid.moz.nmc.profiel;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpClient;
import java.util.UUID;
import java.util.logging.Logger;
import java.util.regex.Pattern;
import nl.overheid.moz.nmc.profiel.generated.ApiClient;
import nl.overheid.moz.nmc.profiel.generated.ApiException;
import nl.overheid.moz.nmc.profiel.generated.api.ContactgegevensApi;
import nl.overheid.moz.nmc.profiel.generated.model.Contactgegevens;
import nl.overheid.moz.nmc.profiel.generated.model.OngeldigMelding;
import nl.overheid.moz.nmc.profiel.generated.model.OngeldigMeldingOntvangen;
import nl.overheid.moz.nmc.profiel.generated.model.Opvraging;
import nl.overheid.moz.nmc.trace.FailedCalls;
import nl.overheid.moz.nmc.trace.Span;

/**
 * {@link Profielservice} on the client generated from {@code api-spec/profielservice.yaml}. An answer that
 * does not match the contract (a 200 without a usable address, a 404 of an unknown problem type, a report
 * acknowledged for another id) is the Profielservice's failure: {@code Unavailable}, never a crash and never
 * a silent success. In particular a 404 counts as "no contact data" only with one of the contract's two
 * problem types, so a misrouted call cannot end notifications niet-bezorgbaar. Every failed call is logged at
 * WARNING with its status or reason and its trace ({@link FailedCalls}); a generated-client exception's message
 * holds the answer's body and is never logged.
 */
public final class ProfielserviceClient implements Profielservice {

    private static final Logger LOG = Logger.getLogger(ProfielserviceClient.class.getName());
    private static final String LOOKUP = "Profielservice POST /contactgegevens/opvragingen";
    private static final String REPORT = "Profielservice POST /contactgegevens/ongeldig-meldingen";
    private static final String LOOKUP_NEXT = "the send is postponed";
    private static final String REPORT_NEXT = "the report is retried later";

    static final String TYPE_UNKNOWN_PARTY = "onbekende-partij";
    static final String TYPE_NO_EMAIL_PREFERENCE = "geen-emailvoorkeur";
    /** The same pragmatic check as the DV API's: one @, a dotted domain, RFC 5321 lengths. */
    private static final Pattern EMAIL = Pattern.compile(
            "^(?=.{1,254}\\z)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?"
                    + "(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+\\z");

    private final ContactgegevensApi api;
    private final ObjectMapper mapper = new ObjectMapper();

    public ProfielserviceClient(ProfielserviceSettings settings) {
        ApiClient client = new ApiClient();
        client.updateBaseUri(settings.baseUrl());
        client.setHttpClientBuilder(HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER));
        client.setReadTimeout(settings.readTimeout());
        client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + settings.token()));
        this.api = new ContactgegevensApi(client);
    }

    @Override
    public Lookup lookUp(String kvkNummer, Span span) {
        try {
            Contactgegevens found = api.contactgegevensOpvragen(
                    new Opvraging().identificerendNummer(kvkNummer).soort(Opvraging.SoortEnum.KVK), span.traceparent());
            String address = found == null ? null : found.getEmailadres();
            if (address != null && EMAIL.matcher(address).matches()) {
                return new Lookup.Found(address);
            }
            FailedCalls.warn(LOG, LOOKUP, "a 200 without a usable e-mail address", span, LOOKUP_NEXT);
            return new Lookup.Unavailable("contract");
        } catch (ApiException e) {
            if (e.getCode() == 404) {
                return switch (problemType(e.getResponseBody())) {
                    case TYPE_UNKNOWN_PARTY -> new Lookup.NoContact(Reason.UNKNOWN_PARTY);
                    case TYPE_NO_EMAIL_PREFERENCE -> new Lookup.NoContact(Reason.NO_EMAIL_PREFERENCE);
                    default -> {
                        FailedCalls.warn(
                                LOG, LOOKUP, "a 404 of a problem type outside the contract", span, LOOKUP_NEXT);
                        yield new Lookup.Unavailable("contract");
                    }
                };
            }
            FailedCalls.warn(LOG, LOOKUP, logReason(e), span, LOOKUP_NEXT);
            return new Lookup.Unavailable(reason(e));
        } catch (RuntimeException e) {
            FailedCalls.warn(LOG, LOOKUP, "an answer outside the contract", span, LOOKUP_NEXT);
            return new Lookup.Unavailable("contract");
        }
    }

    @Override
    public Report reportInvalid(UUID reportId, String kvkNummer, Span span) {
        try {
            OngeldigMeldingOntvangen received = api.emailadresOngeldigMelden(
                    new OngeldigMelding()
                            .meldingId(reportId)
                            .identificerendNummer(kvkNummer)
                            .soort(OngeldigMelding.SoortEnum.KVK)
                            .kanaal(OngeldigMelding.KanaalEnum.EMAIL)
                            .reden(OngeldigMelding.RedenEnum.PERMANENT_FAILURE),
                    span.traceparent());
            if (received != null && reportId.equals(received.getMeldingId())) {
                return new Report.Reported();
            }
            FailedCalls.warn(LOG, REPORT, "acknowledged for another meldingId", span, REPORT_NEXT);
            return new Report.Unavailable("contract");
        } catch (ApiException e) {
            FailedCalls.warn(LOG, REPORT, logReason(e), span, REPORT_NEXT);
            return new Report.Unavailable(reason(e));
        } catch (RuntimeException e) {
            FailedCalls.warn(LOG, REPORT, "an answer outside the contract", span, REPORT_NEXT);
            return new Report.Unavailable("contract");
        }
    }

    /** The last path segment of the problem's {@code type}, or empty when there is none. */
    private String problemType(String body) {
        try {
            JsonNode problem = mapper.readTree(body == null ? "" : body);
            String type = problem == null ? "" : problem.path("type").asText("");
            return type.substring(type.lastIndexOf('/') + 1);
        } catch (java.io.IOException e) {
            return "";
        }
    }

    private static String reason(ApiException e) {
        return e.getCode() > 0 ? "http-" + e.getCode() : "connection";
    }

    private static String logReason(ApiException e) {
        return e.getCode() > 0
                ? FailedCalls.status(e.getCode(), "profielservice.token")
                : FailedCalls.exception(e.getCause() == null ? e : e.getCause());
    }
}
