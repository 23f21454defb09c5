package nl.overheid.moz.nmc.api;

import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import nl.overheid.moz.nmc.api.generated.operator.TakenService;
import nl.overheid.moz.nmc.api.generated.operator.ValidatorUtils;
import nl.overheid.moz.nmc.api.generated.operator.model.HeropeningAanvraag;
import nl.overheid.moz.nmc.api.generated.operator.model.TaakSoort;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.operator.OperatorActions;

/** The operator API's tasks: the parked ones listed, one shown with why it failed, a selection reopened. */
public final class OperatorTasksResource extends TakenService {

    private final OperatorActions operatorActions;
    private final JsonBodies bodies;
    private final Responses responses;

    public OperatorTasksResource(OperatorActions operatorActions, JsonBodies bodies, Responses responses) {
        this.operatorActions = operatorActions;
        this.bodies = bodies;
        this.responses = responses;
    }

    @Override
    protected TakenZoekenOp createTakenZoekenOp() {
        return new TakenZoekenOp() {
            // The generated conversion uses the enum's Java name; the contract's values are its spelling.
            @Override
            protected Optional<TaakSoort> soort(ServerRequest request, ValidatorUtils.Validator validator) {
                return request.query()
                        .first("soort")
                        .asOptional()
                        .map(v -> ParameterParsing.parse("soort", v, TaakSoort::fromValue));
            }
        };
    }

    @Override
    protected TakenHeropenenOp createTakenHeropenenOp() {
        return new TakenHeropenenOp() {
            @Override
            protected HeropeningAanvraag heropeningAanvraag(ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "HeropeningAanvraag", HeropeningAanvraag.class);
            }
        };
    }

    @Override
    protected void handleTakenZoeken(
            ServerRequest request,
            ServerResponse response,
            Optional<TaakSoort> kind,
            Optional<String> dienstverlener,
            Optional<String> error,
            Optional<Long> na,
            Optional<Integer> limit) {
        ParameterParsing.noneWithoutValue(request, "soort", "dienstverlener", "fout", "na", "limit");
        OperatorParameters.check(dienstverlener, "dienstverlener", OperatorParameters.OIN);
        OperatorParameters.check(error, "fout", OperatorParameters.ERROR_CLASS);
        long after = OperatorParameters.position(na);
        int size = OperatorParameters.limit(limit);
        OperatorActions.Page<OperatorActions.TaskInfo> page = operatorActions.parkedTasks(
                kind.map(s -> TaskKind.of(s.getValue())).orElse(null),
                dienstverlener.orElse(null),
                error.orElse(null),
                after,
                size);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("taken", page.items().stream().map(OperatorTasksResource::taak).toList());
        body.put("volgende", page.next());
        responses.json(response, Status.OK_200, body);
    }

    @Override
    protected void handleTaakOpvragen(ServerRequest request, ServerResponse response, Long id) {
        OperatorActions.TaskInfo task =
                operatorActions.task(OperatorParameters.taskId(id)).orElseThrow(ProblemException::notFound);
        responses.json(response, Status.OK_200, taak(task));
    }

    @Override
    protected void handleTakenHeropenen(ServerRequest request, ServerResponse response, HeropeningAanvraag body) {
        OperatorActions.Reopening done = operatorActions.reopen(
                Callers.operator(request).subject(), List.copyOf(body.getTaken()), body.getToelichting());
        responses.json(
                response, Status.OK_200, Map.of("heropend", done.reopened(), "nietGeparkeerd", done.notParked()));
    }

    /** The contract's {@code Taak}: no payload, no lease, no trace id. */
    private static Map<String, Object> taak(OperatorActions.TaskInfo info) {
        var task = info.task();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("id", task.id());
        body.put("soort", task.kind().dbValue());
        body.put("status", task.status());
        body.put("dienstverlener", info.oin());
        body.put("notificatie", task.notificatie());
        body.put("due", task.due());
        body.put("pogingenteller", task.failureCount());
        body.put("uitstel", task.postponements());
        body.put("laatsteFout", task.lastError());
        body.put("aangemaaktOp", task.aangemaaktOp());
        return body;
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}
