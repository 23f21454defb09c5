package nl.overheid.moz.nmc.api;

import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import nl.overheid.moz.nmc.api.generated.operator.RegisterService;
import nl.overheid.moz.nmc.api.generated.operator.ValidatorUtils;
import nl.overheid.moz.nmc.api.generated.operator.model.BerichttypeAanvraag;
import nl.overheid.moz.nmc.api.generated.operator.model.DienstverlenerAanvraag;
import nl.overheid.moz.nmc.api.generated.operator.model.Toelichting;
import nl.overheid.moz.nmc.operator.OperatorActions;
import nl.overheid.moz.nmc.register.Berichttype;
import nl.overheid.moz.nmc.register.Register;
import nl.overheid.moz.nmc.webhook.Webhooks;

/** The DV register and the berichttypen through the operator API; a DV's webhook resumed. */
public final class OperatorRegisterResource extends RegisterService {

    private final OperatorActions operatorActions;
    private final JsonBodies bodies;
    private final Responses responses;

    public OperatorRegisterResource(OperatorActions operatorActions, JsonBodies bodies, Responses responses) {
        this.operatorActions = operatorActions;
        this.bodies = bodies;
        this.responses = responses;
    }

    @Override
    protected DienstverlenerVastleggenOp createDienstverlenerVastleggenOp() {
        return new DienstverlenerVastleggenOp() {
            @Override
            protected DienstverlenerAanvraag dienstverlenerAanvraag(
                    ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "DienstverlenerAanvraag", DienstverlenerAanvraag.class);
            }
        };
    }

    @Override
    protected BerichttypeVastleggenOp createBerichttypeVastleggenOp() {
        return new BerichttypeVastleggenOp() {
            @Override
            protected BerichttypeAanvraag berichttypeAanvraag(
                    ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "BerichttypeAanvraag", BerichttypeAanvraag.class);
            }
        };
    }

    @Override
    protected WebhookHervattenOp createWebhookHervattenOp() {
        return new WebhookHervattenOp() {
            @Override
            protected Toelichting toelichting(ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "Toelichting", Toelichting.class);
            }
        };
    }

    @Override
    protected void handleDienstverlenersOpvragen(ServerRequest request, ServerResponse response) {
        responses.json(
                response,
                Status.OK_200,
                Map.of(
                        "dienstverleners",
                        operatorActions.dienstverleners().stream()
                                .map(this::dienstverlener)
                                .toList()));
    }

    @Override
    protected void handleDienstverlenerOpvragen(ServerRequest request, ServerResponse response, String oin) {
        OperatorParameters.check(oin, "oin", OperatorParameters.OIN);
        responses.json(
                response,
                Status.OK_200,
                dienstverlener(operatorActions.dienstverlener(oin).orElseThrow(ProblemException::notFound)));
    }

    @Override
    protected void handleDienstverlenerVastleggen(
            ServerRequest request, ServerResponse response, String oin, DienstverlenerAanvraag body) {
        // The generated service has checked the body against its schema already: a bad body is named before a bad OIN.
        OperatorParameters.check(oin, "oin", OperatorParameters.OIN);
        List<ProblemException.FieldError> errors = new ArrayList<>();
        Duration acknowledgementPeriod = duration(body.getBevestigingstermijn(), "/bevestigingstermijn", errors);
        Duration maxCursorAge = duration(body.getMaxCursorleeftijd(), "/maxCursorleeftijd", errors);
        if (!errors.isEmpty()) {
            throw ProblemException.invalid(errors);
        }
        Register.Registration saved = operatorActions.putDienstverlener(
                Callers.operator(request).subject(),
                new OperatorActions.DvInput(
                        oin,
                        body.getNaam(),
                        body.getQuotumPerMinuut(),
                        List.copyOf(body.getBerichttypen()),
                        body.getWebhookUrl(),
                        body.getWebhookMaxMislukkingen(),
                        acknowledgementPeriod,
                        maxCursorAge,
                        body.getBeheerkanaal(),
                        body.getProfielDienstverlenerNaam(),
                        // absent: the generated model's empty list (the schema refuses an explicit empty one)
                        body.getIdentificatieTypen() == null
                                        || body.getIdentificatieTypen().isEmpty()
                                ? null
                                : body.getIdentificatieTypen().stream()
                                        .map(type -> type.getValue())
                                        .toList()),
                body.getToelichting());
        responses.json(response, Status.OK_200, dienstverlener(saved));
    }

    @Override
    protected void handleWebhookHervatten(
            ServerRequest request, ServerResponse response, String oin, Toelichting body) {
        OperatorParameters.check(oin, "oin", OperatorParameters.OIN);
        responses.json(
                response,
                Status.OK_200,
                webhook(operatorActions.resumeWebhook(
                        Callers.operator(request).subject(), oin, body.getToelichting())));
    }

    @Override
    protected void handleBerichttypenOpvragen(ServerRequest request, ServerResponse response) {
        responses.json(
                response,
                Status.OK_200,
                Map.of(
                        "berichttypen",
                        operatorActions.berichttypen().stream()
                                .map(OperatorRegisterResource::berichttype)
                                .toList()));
    }

    @Override
    protected void handleBerichttypeVastleggen(
            ServerRequest request, ServerResponse response, String code, BerichttypeAanvraag body) {
        OperatorParameters.check(code, "code", OperatorParameters.CODE);
        List<ProblemException.FieldError> errors = new ArrayList<>();
        Duration validity = duration(body.getStandaardGeldigheid(), "/standaardGeldigheid", errors);
        if (!errors.isEmpty()) {
            throw ProblemException.invalid(errors);
        }
        Berichttype saved = operatorActions.putBerichttype(
                Callers.operator(request).subject(),
                new Berichttype(
                        code,
                        body.getTemplateId(),
                        body.getNotifyService() == null ? "standaard" : body.getNotifyService(),
                        validity,
                        body.getMaxPogingen() == null ? 5 : body.getMaxPogingen(),
                        body.getVerwerkingsactiviteit().toString(),
                        body.getProfielDienstNaam()),
                body.getToelichting());
        responses.json(response, Status.OK_200, berichttype(saved));
    }

    /** An ISO 8601 duration of days and times; the contract's pattern let it through, Java must read it too. */
    private static Duration duration(String value, String field, List<ProblemException.FieldError> errors) {
        if (value == null) {
            return null;
        }
        try {
            return Duration.parse(value);
        } catch (DateTimeParseException e) {
            errors.add(
                    new ProblemException.FieldError(field, "format", "Geen geldige ISO 8601-duur (bijv. P7D, PT12H)."));
            return null;
        }
    }

    /** The contract's {@code Dienstverlener}, with its webhook's state when it has one. */
    private Map<String, Object> dienstverlener(Register.Registration registration) {
        var dv = registration.dv();
        var contract = dv.contract();
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("oin", dv.oin());
        body.put("naam", dv.naam());
        body.put("quotumPerMinuut", dv.quotaPerMinute());
        body.put("berichttypen", dv.berichttypen());
        body.put(
                "webhookUrl",
                contract.webhookUrl() == null ? null : contract.webhookUrl().toString());
        body.put("webhookMaxMislukkingen", contract.webhookMaxFailures());
        body.put("bevestigingstermijn", contract.acknowledgementPeriod().toString());
        body.put("maxCursorleeftijd", contract.maxCursorAge().toString());
        body.put(
                "beheerkanaal",
                contract.managementChannel() == null
                        ? null
                        : contract.managementChannel().toString());
        body.put("profielDienstverlenerNaam", dv.profielNaam() == null ? dv.naam() : dv.profielNaam());
        body.put("identificatieTypen", dv.identificatieTypen());
        if (contract.webhookUrl() != null) {
            operatorActions.webhook(registration.id()).ifPresent(state -> body.put("webhook", webhook(state)));
        }
        return body;
    }

    private static Map<String, Object> webhook(Webhooks.State state) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", state.paused() ? "gepauzeerd" : "actief");
        body.put("mislukkingen", state.mislukkingen());
        body.put("gepauzeerdTot", state.gepauzeerdTot());
        return body;
    }

    private static Map<String, Object> berichttype(Berichttype type) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", type.code());
        body.put("templateId", type.notifyTemplateId());
        body.put("notifyService", type.notifyService());
        body.put(
                "standaardGeldigheid",
                type.defaultValidity() == null ? null : type.defaultValidity().toString());
        body.put("maxPogingen", type.maxFailures());
        body.put("verwerkingsactiviteit", type.processingActivity());
        body.put("profielDienstNaam", type.profielDienstNaam());
        return body;
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}
