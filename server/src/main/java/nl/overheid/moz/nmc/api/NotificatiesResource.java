package nl.overheid.moz.nmc.api;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Pattern;
import nl.overheid.moz.nmc.acceptance.Aanname;
import nl.overheid.moz.nmc.acceptance.Annulering;
import nl.overheid.moz.nmc.api.generated.dv.NotificatiesService;
import nl.overheid.moz.nmc.api.generated.dv.ValidatorUtils;
import nl.overheid.moz.nmc.api.generated.dv.model.CentraleNotificatieAanvraag;
import nl.overheid.moz.nmc.api.generated.dv.model.DecentraleNotificatieAanvraag;
import nl.overheid.moz.nmc.api.generated.dv.model.Notificatie;
import nl.overheid.moz.nmc.api.generated.dv.model.NotificatieAangenomen;
import nl.overheid.moz.nmc.api.generated.dv.model.NotificatieLijst;
import nl.overheid.moz.nmc.api.generated.dv.model.Poging;
import nl.overheid.moz.nmc.register.Dienstverlener;
import nl.overheid.moz.nmc.status.StatusQueries;

/** Acceptance, status, search and cancel: the Notificaties tag of the DV API. */
public final class NotificatiesResource extends NotificatiesService {

    private static final Pattern DV_REF = Pattern.compile("^[\\x21-\\x7E]{1,200}$");
    private static final int SEARCH_LIMIT = 100;

    private final Aanname aanname;
    private final Annulering annulering;
    private final StatusQueries status;
    private final JsonBodies bodies;
    private final Responses responses;

    public NotificatiesResource(Aanname aanname, Annulering annulering, StatusQueries status, JsonBodies bodies,
                                Responses responses) {
        this.aanname = aanname;
        this.annulering = annulering;
        this.status = status;
        this.bodies = bodies;
        this.responses = responses;
    }

    @Override
    protected NotificatieAannemenDecentraalOp createNotificatieAannemenDecentraalOp() {
        return new NotificatieAannemenDecentraalOp() {
            @Override
            protected DecentraleNotificatieAanvraag decentraleNotificatieAanvraag(ServerRequest request,
                                                                                ValidatorUtils.Validator validator) {
                return bodies.read(request, "DecentraleNotificatieAanvraag", DecentraleNotificatieAanvraag.class);
            }
        };
    }

    @Override
    protected NotificatieAannemenCentraalOp createNotificatieAannemenCentraalOp() {
        return new NotificatieAannemenCentraalOp() {
            @Override
            protected CentraleNotificatieAanvraag centraleNotificatieAanvraag(ServerRequest request,
                                                                            ValidatorUtils.Validator validator) {
                return bodies.read(request, "CentraleNotificatieAanvraag", CentraleNotificatieAanvraag.class);
            }
        };
    }

    @Override
    protected void handleNotificatieAannemenDecentraal(ServerRequest request, ServerResponse response,
                                                       DecentraleNotificatieAanvraag body) {
        accept(request, response, new Aanname.Request("decentraal", body.getDvRef(), body.getBerichttype(),
                body.getEmailadres(), personalisation(body.getPersonalisation()), instant(body.getGeldigTot()),
                body.getBatchId(), request.headers().value(HeaderNames.create("traceparent"))));
    }

    @Override
    protected void handleNotificatieAannemenCentraal(ServerRequest request, ServerResponse response,
                                                     CentraleNotificatieAanvraag body) {
        accept(request, response, new Aanname.Request("centraal", body.getDvRef(), body.getBerichttype(),
                body.getIdentificerendNummer(), personalisation(body.getPersonalisation()),
                instant(body.getGeldigTot()), body.getBatchId(),
                request.headers().value(HeaderNames.create("traceparent"))));
    }

    /** Both regimes answer the same: 202 with id, status and versie, and the status's location. */
    private void accept(ServerRequest request, ServerResponse response, Aanname.Request acceptance) {
        Aanname.Accepted n = aanname.accept(Callers.of(request), acceptance);
        NotificatieAangenomen result = new NotificatieAangenomen();
        result.setId(n.id());
        result.setStatus(nl.overheid.moz.nmc.api.generated.dv.model.NotificatieStatus.fromValue(n.status().dbValue()));
        result.setVersie(n.versie());
        responses.jsonWithLocation(response, Status.ACCEPTED_202, ApiFilter.BASE_PATH + "/notificaties/" + n.id(), result);
    }

    private static Map<String, String> personalisation(Map<String, String> personalisation) {
        return personalisation == null ? Map.of() : personalisation;
    }

    private static Instant instant(OffsetDateTime time) {
        return time == null ? null : time.toInstant();
    }

    @Override
    protected void handleNotificatieOpvragen(ServerRequest request, ServerResponse response, UUID id) {
        Notificatie notificatie = status.byId(Callers.of(request), id).map(NotificatiesResource::toModel)
                .orElseThrow(ProblemException::notFound);
        responses.json(response, Status.OK_200, notificatie);
    }

    @Override
    protected void handleNotificatiesZoeken(ServerRequest request, ServerResponse response, String dvRef) {
        if (dvRef == null || !DV_REF.matcher(dvRef).matches()) {
            throw ProblemException.invalid("dvRef", "pattern",
                    "dvRef is verplicht: 1 tot 200 zichtbare ASCII-tekens.");
        }
        NotificatieLijst lijst = new NotificatieLijst();
        lijst.setNotificaties(status.byDvRef(Callers.of(request), dvRef, SEARCH_LIMIT).stream()
                .map(NotificatiesResource::toModel).toList());
        responses.json(response, Status.OK_200, lijst);
    }

    @Override
    protected void handleNotificatieAnnuleren(ServerRequest request, ServerResponse response, UUID id) {
        Dienstverlener dv = Callers.of(request);
        annulering.cancel(dv.id(), id);
        handleNotificatieOpvragen(request, response, id);
    }

    private static Notificatie toModel(StatusQueries.Snapshot snapshot) {
        var view = snapshot.view();
        var attempts = snapshot.pogingen();
        Notificatie model = new Notificatie();
        model.setId(view.id());
        model.setStatus(nl.overheid.moz.nmc.api.generated.dv.model.NotificatieStatus.fromValue(view.status().dbValue()));
        model.setVersie(view.versie());
        if (view.reden() != null) {
            model.setReden(nl.overheid.moz.nmc.api.generated.dv.model.Reden.fromValue(view.reden().dbValue()));
        }
        model.setBerichttype(view.berichttype());
        model.setRegie(Notificatie.RegieEnum.fromValue(view.regie()));
        model.setBatchId(view.batchId());
        model.setGeldigTot(time(view.geldigTot()));
        model.setAangenomenOp(time(view.aangenomenOp()));
        model.setDefinitiefOp(time(view.definitiefOp()));
        model.setBezorgdOp(time(snapshot.bezorgdOp()));
        model.setPogingen(attempts.stream().map(p -> {
            Poging poging = new Poging();
            poging.setNummer(p.nummer());
            poging.setStatus(nl.overheid.moz.nmc.api.generated.dv.model.PogingStatus.fromValue(p.status().dbValue()));
            poging.setVerzondenOp(time(p.verzondenOp()));
            poging.setAfgerondOp(time(p.ontvangstCompletedAt()));
            return poging;
        }).toList());
        return model;
    }

    static OffsetDateTime time(Instant instant) {
        return Optional.ofNullable(instant).map(i -> i.atOffset(ZoneOffset.UTC)).orElse(null);
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}
