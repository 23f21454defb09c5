package nl.overheid.moz.nmc.api;

import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.Map;
import nl.overheid.moz.nmc.api.generated.operator.SleutelsService;
import nl.overheid.moz.nmc.api.generated.operator.ValidatorUtils;
import nl.overheid.moz.nmc.api.generated.operator.model.EpochVerhoging;
import nl.overheid.moz.nmc.api.generated.operator.model.PepperCompromittering;
import nl.overheid.moz.nmc.api.generated.operator.model.Toelichting;
import nl.overheid.moz.nmc.operator.OperatorActions;
import nl.overheid.moz.nmc.retention.PepperCompromises;

/** The cluster epoch, the KEK re-wrap and compromised pepper versions (the operator API). */
public final class OperatorKeysResource extends SleutelsService {

    private final OperatorActions operatorActions;
    private final JsonBodies bodies;
    private final Responses responses;

    public OperatorKeysResource(OperatorActions operatorActions, JsonBodies bodies, Responses responses) {
        this.operatorActions = operatorActions;
        this.bodies = bodies;
        this.responses = responses;
    }

    @Override
    protected ClusterEpochVerhogenOp createClusterEpochVerhogenOp() {
        return new ClusterEpochVerhogenOp() {
            @Override
            protected EpochVerhoging epochVerhoging(ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "EpochVerhoging", EpochVerhoging.class);
            }
        };
    }

    @Override
    protected KekHerwrappenOp createKekHerwrappenOp() {
        return new KekHerwrappenOp() {
            @Override
            protected Toelichting toelichting(ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "Toelichting", Toelichting.class);
            }
        };
    }

    @Override
    protected PepperCompromitterenOp createPepperCompromitterenOp() {
        return new PepperCompromitterenOp() {
            @Override
            protected PepperCompromittering pepperCompromittering(
                    ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "PepperCompromittering", PepperCompromittering.class);
            }
        };
    }

    @Override
    protected void handleClusterEpochOpvragen(ServerRequest request, ServerResponse response) {
        responses.json(response, Status.OK_200, Map.of("epoch", operatorActions.clusterEpoch()));
    }

    @Override
    protected void handleClusterEpochVerhogen(ServerRequest request, ServerResponse response, EpochVerhoging body) {
        responses.json(
                response,
                Status.OK_200,
                Map.of(
                        "epoch",
                        operatorActions.raiseClusterEpoch(
                                Callers.operator(request).subject(), body.getHuidigeEpoch(), body.getToelichting())));
    }

    @Override
    protected void handleKekHerwrappen(ServerRequest request, ServerResponse response, Toelichting body) {
        OperatorActions.Rewrap done =
                operatorActions.rewrap(Callers.operator(request).subject(), body.getToelichting());
        responses.json(
                response,
                Status.OK_200,
                Map.of(
                        "herwrapt",
                        done.rewrapped(),
                        "huidigeVersie",
                        done.currentVersion(),
                        "rijenPerVersie",
                        done.rowsPerVersion()));
    }

    @Override
    protected void handlePepperCompromitteren(
            ServerRequest request, ServerResponse response, PepperCompromittering body) {
        PepperCompromises.Purpose purpose = switch (body.getDoel()) {
            case DVREF -> PepperCompromises.Purpose.DVREF;
            case PAYLOAD -> PepperCompromises.Purpose.PAYLOAD;
            case LDV -> PepperCompromises.Purpose.LDV;
        };
        operatorActions.markPepperCompromised(
                Callers.operator(request).subject(), purpose, body.getVersie(), body.getToelichting());
        responses.json(response, Status.OK_200, Map.of("doel", purpose.dbValue(), "versie", body.getVersie()));
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}
