package nl.overheid.moz.nmc.conformance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.client.ApiClient;
import nl.overheid.moz.nmc.client.ApiException;
import nl.overheid.moz.nmc.client.ApiResponse;
import nl.overheid.moz.nmc.client.api.NotificatiesApi;
import nl.overheid.moz.nmc.client.api.WijzigingenApi;
import nl.overheid.moz.nmc.client.model.Bevestiging;
import nl.overheid.moz.nmc.client.model.BulkResultaten;
import nl.overheid.moz.nmc.client.model.CentraleNotificatieAanvraag;
import nl.overheid.moz.nmc.client.model.DecentraleNotificatieAanvraag;
import nl.overheid.moz.nmc.client.model.DecentraleNotificatiesBulkAanvraag;
import nl.overheid.moz.nmc.client.model.Notificatie;
import nl.overheid.moz.nmc.client.model.NotificatieAangenomen;
import nl.overheid.moz.nmc.client.model.Wijzigingen;
import nl.overheid.moz.nmc.testing.TestNmc;

/** The suite through the DV client SDK generated from the same contract. */
class SdkHappyPathTest extends HappyPathSuite {

    private ApiClient client(String token) {
        URI base = URI.create(environment.baseUrl);
        ApiClient client = new ApiClient();
        client.setScheme(base.getScheme());
        client.setHost(base.getHost());
        client.setPort(base.getPort());
        client.setBasePath("/api/nmc/v1");
        client.setRequestInterceptor(request -> request.header("Authorization", "Bearer " + token));
        return client;
    }

    @Override
    protected Accepted accept(String token, String dvRef, String email, String berichttype) {
        DecentraleNotificatieAanvraag request = new DecentraleNotificatieAanvraag()
                .dvRef(dvRef)
                .berichttype(berichttype)
                .emailadres(email)
                .personalisation(Map.of("onderwerp", "Conformance"));
        try {
            ApiResponse<NotificatieAangenomen> response =
                    new NotificatiesApi(client(token)).notificatieAannemenDecentraalWithHttpInfo(request);
            NotificatieAangenomen body = response.getData();
            String location =
                    response.getHeaders().getOrDefault("location", List.of("")).getFirst();
            return new Accepted(body.getId(), body.getStatus().getValue(), body.getVersie(), location);
        } catch (ApiException e) {
            throw new AssertionError(e.getCode() + " " + e.getResponseBody(), e);
        }
    }

    @Override
    protected List<Integer> acceptBulk(String token, List<String> dvRefs, String email, List<Accepted> accepted) {
        DecentraleNotificatiesBulkAanvraag request = new DecentraleNotificatiesBulkAanvraag()
                .notificaties(dvRefs.stream()
                        .map(dvRef -> new DecentraleNotificatieAanvraag()
                                .dvRef(dvRef)
                                .berichttype(TestNmc.BERICHTTYPE)
                                .emailadres(email))
                        .toList());
        try {
            BulkResultaten results = new NotificatiesApi(client(token)).notificatiesAannemenDecentraalBulk(request);
            return results.getResultaten().stream()
                    .map(result -> {
                        NotificatieAangenomen n = result.getNotificatie();
                        accepted.add(
                                n == null
                                        ? null
                                        : new Accepted(n.getId(), n.getStatus().getValue(), n.getVersie(), ""));
                        return result.getStatus();
                    })
                    .toList();
        } catch (ApiException e) {
            throw new AssertionError(e.getCode() + " " + e.getResponseBody(), e);
        }
    }

    @Override
    protected Accepted acceptCentraal(String token, String dvRef, String kvkNummer) {
        CentraleNotificatieAanvraag request = new CentraleNotificatieAanvraag()
                .dvRef(dvRef)
                .berichttype(TestNmc.BERICHTTYPE)
                .identificatieType(CentraleNotificatieAanvraag.IdentificatieTypeEnum.KVK)
                .identificatieNummer(kvkNummer)
                .personalisation(Map.of("onderwerp", "Conformance"));
        try {
            ApiResponse<NotificatieAangenomen> response =
                    new NotificatiesApi(client(token)).notificatieAannemenCentraalWithHttpInfo(request);
            NotificatieAangenomen body = response.getData();
            String location =
                    response.getHeaders().getOrDefault("location", List.of("")).getFirst();
            return new Accepted(body.getId(), body.getStatus().getValue(), body.getVersie(), location);
        } catch (ApiException e) {
            throw new AssertionError(e.getCode() + " " + e.getResponseBody(), e);
        }
    }

    @Override
    protected Snapshot status(String token, UUID id) {
        try {
            Notificatie body = new NotificatiesApi(client(token)).notificatieOpvragen(id);
            return new Snapshot(
                    body.getStatus().getValue(),
                    body.getVersie(),
                    body.getReden() == null ? null : body.getReden().getValue());
        } catch (ApiException e) {
            throw new AssertionError(e.getCode() + " " + e.getResponseBody(), e);
        }
    }

    @Override
    protected Page feed(String token, String cursor) {
        try {
            ApiClient client = client(token);
            Wijzigingen body = new WijzigingenApi(client).wijzigingenLezen(cursor, null);
            ObjectMapper mapper = client.getObjectMapper();
            List<JsonNode> events = body.getEvents().stream()
                    .map(event -> (JsonNode) mapper.valueToTree(event))
                    .toList();
            return new Page(events, body.getCursor());
        } catch (ApiException e) {
            throw new AssertionError(e.getCode() + " " + e.getResponseBody(), e);
        }
    }

    @Override
    protected void acknowledge(String token, String cursor) {
        try {
            new WijzigingenApi(client(token)).wijzigingenBevestigen(new Bevestiging().cursor(cursor));
        } catch (ApiException e) {
            throw new AssertionError(e.getCode() + " " + e.getResponseBody(), e);
        }
    }
}
