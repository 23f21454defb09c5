package nl.overheid.moz.nmc.ldv;

import java.net.http.HttpClient;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.ldv.generated.ApiClient;
import nl.overheid.moz.nmc.ldv.generated.ApiException;
import nl.overheid.moz.nmc.ldv.generated.api.DataverwerkingenApi;
import nl.overheid.moz.nmc.ldv.generated.model.Attribuut;
import nl.overheid.moz.nmc.ldv.generated.model.Bevestiging;
import nl.overheid.moz.nmc.ldv.generated.model.Dataverwerking;
import nl.overheid.moz.nmc.ldv.generated.model.Resource;
import nl.overheid.moz.nmc.trace.FailedCalls;

/**
 * {@link ProcessingLog} on the client generated from {@code api-spec/ldv.yaml}. Only a 201 whose body
 * carries an id is an acknowledgement; any other answer, a time-out or an answer outside the contract is
 * {@code Unavailable}, so the caller postpones and the call the record is about does not happen. Every failure is
 * logged at WARNING with its status or reason and the record's trace ({@link FailedCalls}).
 */
public final class LdvClient implements ProcessingLog {

    private static final Logger LOG = Logger.getLogger(LdvClient.class.getName());

    private final DataverwerkingenApi api;

    public LdvClient(LdvSettings settings) {
        ApiClient client = new ApiClient();
        client.updateBaseUri(settings.baseUrl());
        client.setHttpClientBuilder(HttpClient.newBuilder()
                .connectTimeout(settings.connectTimeout())
                .followRedirects(HttpClient.Redirect.NEVER));
        client.setReadTimeout(settings.readTimeout());
        client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + settings.token()));
        this.api = new DataverwerkingenApi(client);
    }

    @Override
    public Written record(Processing p) {
        Dataverwerking record = new Dataverwerking()
                .traceId(p.span().traceId())
                .spanId(p.span().spanId())
                .parentSpanId(p.span().parentSpanId())
                .name(p.operation().recordName())
                .startTime(p.at().atOffset(ZoneOffset.UTC))
                // Written before the call it is about: the processing is decided, its end is this moment.
                .endTime(p.at().atOffset(ZoneOffset.UTC))
                .statusCode(Dataverwerking.StatusCodeEnum.STATUS_CODE_OK)
                .resource(new Resource().attributes(List.of(attribute("service.name", "nmc"))))
                .attributes(attributes(p));
        try {
            var response =
                    api.dataverwerkingVastleggenWithHttpInfo(record, p.span().traceparent());
            Bevestiging acknowledged = response.getData();
            // Only a 201 with an id is the acknowledgement the contract promises; any other 2xx is not.
            if (response.getStatusCode() != 201
                    || acknowledged == null
                    || acknowledged.getId() == null
                    || acknowledged.getId().isBlank()) {
                unacknowledged(p, "HTTP " + response.getStatusCode() + " without the acknowledgement's id");
                return new Written.Unavailable("contract");
            }
            return new Written.Acknowledged(acknowledged.getId());
        } catch (ApiException e) {
            unacknowledged(
                    p,
                    e.getCode() > 0
                            ? FailedCalls.status(e.getCode(), "ldv.token")
                            : FailedCalls.exception(e.getCause() == null ? e : e.getCause()));
            return new Written.Unavailable(e.getCode() > 0 ? "http-" + e.getCode() : "connection");
        } catch (RuntimeException e) {
            unacknowledged(p, "an answer outside the contract");
            return new Written.Unavailable("contract");
        }
    }

    private static void unacknowledged(Processing p, String reason) {
        FailedCalls.warn(
                LOG,
                "LDV POST /dataverwerkingen (record " + p.operation().recordName() + ")",
                reason,
                p.span(),
                "the call it records does not happen and is postponed");
    }

    private static List<Attribuut> attributes(Processing p) {
        List<Attribuut> attributes = new ArrayList<>();
        attributes.add(attribute("dpl.core.processing_activity_id", p.processingActivity()));
        attributes.add(attribute("dpl.core.data_subject_id", p.subject().id()));
        attributes.add(attribute("dpl.core.data_subject_id_type", p.subject().type()));
        return attributes;
    }

    private static Attribuut attribute(String key, String value) {
        return new Attribuut().key(key).value(value);
    }
}
