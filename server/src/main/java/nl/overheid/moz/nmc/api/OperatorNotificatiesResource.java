package nl.overheid.moz.nmc.api;

import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.api.generated.operator.NotificatiesService;
import nl.overheid.moz.nmc.api.generated.operator.ValidatorUtils;
import nl.overheid.moz.nmc.api.generated.operator.model.OvergangAanvraag;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;
import nl.overheid.moz.nmc.operator.OperatorActions;

/** A forced transition of a notification, through the transition function (the operator API). */
public final class OperatorNotificatiesResource extends NotificatiesService {

    private final OperatorActions operatorActions;
    private final JsonBodies bodies;
    private final Responses responses;

    public OperatorNotificatiesResource(OperatorActions operatorActions, JsonBodies bodies, Responses responses) {
        this.operatorActions = operatorActions;
        this.bodies = bodies;
        this.responses = responses;
    }

    /* The tag has one path with a parameter in it; routed in full under the API's base path. */
    @Override
    public void routing(io.helidon.webserver.http.HttpRules rules) {
        rules.post("/notificaties/{id}/overgangen", this::overgangForceren);
    }

    @Override
    protected OvergangForcerenOp createOvergangForcerenOp() {
        return new OvergangForcerenOp() {
            @Override
            protected OvergangAanvraag overgangAanvraag(ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "OvergangAanvraag", OvergangAanvraag.class);
            }
        };
    }

    @Override
    protected void handleOvergangForceren(
            ServerRequest request, ServerResponse response, UUID id, OvergangAanvraag body) {
        OperatorActions.Forced forced = operatorActions.forceTransition(
                Callers.operator(request).subject(),
                id,
                NotificatieStatus.of(body.getNaar().getValue()),
                body.getReden() == null
                        ? null
                        : Reden.ofNullable(body.getReden().getValue()),
                body.getToelichting());
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("notificatie", forced.notificatie());
        answer.put("van", forced.from().dbValue());
        answer.put("naar", forced.to().dbValue());
        answer.put("reden", forced.reden() == null ? null : forced.reden().dbValue());
        answer.put("versie", forced.version());
        responses.json(response, Status.OK_200, answer);
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}
