package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Function;
import java.util.regex.Pattern;
import nl.overheid.moz.nmc.acceptance.Acceptance;
import nl.overheid.moz.nmc.acceptance.Cancellation;
import nl.overheid.moz.nmc.api.generated.dv.NotificatiesService;
import nl.overheid.moz.nmc.api.generated.dv.ValidatorUtils;
import nl.overheid.moz.nmc.api.generated.dv.model.CentraleNotificatieAanvraag;
import nl.overheid.moz.nmc.api.generated.dv.model.CentraleNotificatiesBulkAanvraag;
import nl.overheid.moz.nmc.api.generated.dv.model.DecentraleNotificatieAanvraag;
import nl.overheid.moz.nmc.api.generated.dv.model.DecentraleNotificatiesBulkAanvraag;
import nl.overheid.moz.nmc.api.generated.dv.model.Notificatie;
import nl.overheid.moz.nmc.api.generated.dv.model.NotificatieAangenomen;
import nl.overheid.moz.nmc.api.generated.dv.model.NotificatieLijst;
import nl.overheid.moz.nmc.api.generated.dv.model.Poging;
import nl.overheid.moz.nmc.refusal.Refusal;
import nl.overheid.moz.nmc.register.Dienstverlener;
import nl.overheid.moz.nmc.status.StatusQueries;
import nl.overheid.moz.nmc.trace.Span;
import nl.overheid.moz.nmc.trace.TraceContexts;

/** Acceptance, status, search and cancel: the Notificaties tag of the DV API. */
public final class NotificatiesResource extends NotificatiesService {

    private static final Pattern DV_REF = Pattern.compile("^[\\x21-\\x7E]{1,200}$");
    private static final int SEARCH_LIMIT = 100;
    /** The most notifications one bulk request carries (the contract's maxItems). */
    static final int BULK_MAX = 1000;

    private final Acceptance acceptance;
    private final Cancellation cancellation;
    private final StatusQueries status;
    private final JsonBodies bodies;
    private final JsonBodies bulkBodies;
    private final Responses responses;
    private final ProblemResponses problems;
    private final ObjectMapper mapper;

    public NotificatiesResource(
            Acceptance acceptance,
            Cancellation cancellation,
            StatusQueries status,
            JsonBodies bodies,
            JsonBodies bulkBodies,
            Responses responses,
            ProblemResponses problems,
            ObjectMapper mapper) {
        this.acceptance = acceptance;
        this.cancellation = cancellation;
        this.status = status;
        this.bodies = bodies;
        this.bulkBodies = bulkBodies;
        this.responses = responses;
        this.problems = problems;
        this.mapper = mapper;
    }

    @Override
    protected NotificatieAannemenDecentraalOp createNotificatieAannemenDecentraalOp() {
        return new NotificatieAannemenDecentraalOp() {
            @Override
            protected DecentraleNotificatieAanvraag decentraleNotificatieAanvraag(
                    ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "DecentraleNotificatieAanvraag", DecentraleNotificatieAanvraag.class);
            }
        };
    }

    @Override
    protected NotificatieAannemenCentraalOp createNotificatieAannemenCentraalOp() {
        return new NotificatieAannemenCentraalOp() {
            @Override
            protected CentraleNotificatieAanvraag centraleNotificatieAanvraag(
                    ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "CentraleNotificatieAanvraag", CentraleNotificatieAanvraag.class);
            }
        };
    }

    /*
     * A bulk request is validated item by item (each answered on its own), so the generated binding of the
     * whole body, which would refuse all items for one bad one, is replaced by the routing method below.
     */
    @Override
    protected void notificatiesAannemenDecentraalBulk(ServerRequest request, ServerResponse response) {
        acceptBulk(
                request,
                response,
                "DecentraleNotificatieAanvraag",
                item -> decentraal(request, bulkBodies.bind(item, DecentraleNotificatieAanvraag.class)));
    }

    @Override
    protected void notificatiesAannemenCentraalBulk(ServerRequest request, ServerResponse response) {
        acceptBulk(
                request,
                response,
                "CentraleNotificatieAanvraag",
                item -> centraal(request, bulkBodies.bind(item, CentraleNotificatieAanvraag.class)));
    }

    /* Reached only by a caller that bound the body itself; answers exactly as the routing method does. */
    @Override
    protected void handleNotificatiesAannemenDecentraalBulk(
            ServerRequest request, ServerResponse response, DecentraleNotificatiesBulkAanvraag body) {
        answerBulk(
                request,
                response,
                "DecentraleNotificatieAanvraag",
                body.getNotificaties().size(),
                body.getNotificaties().stream()
                        .<JsonNode>map(mapper::valueToTree)
                        .iterator(),
                item -> decentraal(request, bulkBodies.bind(item, DecentraleNotificatieAanvraag.class)));
    }

    @Override
    protected void handleNotificatiesAannemenCentraalBulk(
            ServerRequest request, ServerResponse response, CentraleNotificatiesBulkAanvraag body) {
        answerBulk(
                request,
                response,
                "CentraleNotificatieAanvraag",
                body.getNotificaties().size(),
                body.getNotificaties().stream()
                        .<JsonNode>map(mapper::valueToTree)
                        .iterator(),
                item -> centraal(request, bulkBodies.bind(item, CentraleNotificatieAanvraag.class)));
    }

    private void acceptBulk(
            ServerRequest request,
            ServerResponse response,
            String itemSchema,
            Function<JsonNode, Acceptance.Request> toRequest) {
        // before the body is read: a bulk over a used-up quota costs no parsing, validation or sealing
        acceptance.refuseWhenQuotaUsedUp(Callers.of(request));
        // the whole body's check is paced as the items are: tokenising 4 MB is a step of its own
        BulkBody body = BulkBody.of(bulkBodies.mapper(), bulkBodies.bytes(request), BULK_MAX, pace(request));
        answerBulk(request, response, itemSchema, body.size(), body.iterator(), toRequest);
    }

    /**
     * Validates each item on its own, accepts the valid ones a slice at a time (a chunk of the acceptance's), and
     * answers every item in order with the status and body a single request would have had. A slice is accepted
     * as soon as it is read, so only its items are alive (a repeat of an item of an earlier slice is found stored,
     * as any repeat is).
     */
    private void answerBulk(
            ServerRequest request,
            ServerResponse response,
            String itemSchema,
            int size,
            Iterator<JsonNode> items,
            Function<JsonNode, Acceptance.Request> toRequest) {
        ObjectNode[] results = new ObjectNode[size];
        List<Integer> positions = new ArrayList<>();
        List<Acceptance.Request> requests = new ArrayList<>();
        Runnable pace = pace(request);
        long retryAfter = 0;
        boolean answered = false; // a slice was accepted: an unreachable database no longer fails the whole call
        boolean unreachable = false; // it did, in a later slice: the items after it are not tried
        for (int i = 0; i < size; i++) {
            if (i % Acceptance.STEP_ITEMS == Acceptance.STEP_ITEMS - 1) { // a step of its pace
                pace.run();
            }
            JsonNode item = items.next();
            List<ProblemException.FieldError> errors = bulkBodies.errors(itemSchema, item, "/notificaties/" + i);
            if (errors.isEmpty()) {
                positions.add(i);
                requests.add(toRequest.apply(item));
            } else {
                results[i] = refused(ProblemException.invalid(errors));
            }
            if (requests.size() == Acceptance.CHUNK || i == size - 1 && !requests.isEmpty()) {
                if (unreachable) {
                    ProblemException problem = DomainProblems.of(new Refusal.StoreUnreachable());
                    for (int position : positions) {
                        results[position] = refused(problem);
                    }
                } else {
                    List<Acceptance.Outcome> outcomes =
                            acceptance.acceptAll(Callers.of(request), requests, pace, answered);
                    retryAfter = Math.max(retryAfter, answerSlice(positions, outcomes, results));
                    answered = true;
                    unreachable = outcomes.stream()
                            .anyMatch(o -> o instanceof Acceptance.Refused r
                                    && r.reason() instanceof Refusal.StoreUnreachable);
                }
                positions = new ArrayList<>();
                requests = new ArrayList<>();
            }
        }
        ObjectNode body = mapper.createObjectNode();
        body.putArray("resultaten").addAll(List.of(results));
        if (retryAfter > 0) {
            response.header(HeaderNames.RETRY_AFTER, Long.toString(retryAfter));
        }
        responses.json(response, Status.OK_200, body);
    }

    /** The call's pace while other DVs' calls are in progress (RequestLimits.Pace); none without the filter. */
    private static Runnable pace(ServerRequest request) {
        return request.context()
                .get(RequestLimits.Pace.class)
                .<Runnable>map(p -> p)
                .orElse(() -> {});
    }

    /** Puts each outcome of one slice at its item's place; returns the Retry-After it asks (0: none). */
    private long answerSlice(List<Integer> positions, List<Acceptance.Outcome> outcomes, ObjectNode[] results) {
        long retryAfter = 0;
        for (int k = 0; k < outcomes.size(); k++) {
            switch (outcomes.get(k)) {
                case Acceptance.Accepted accepted ->
                    results[positions.get(k)] = mapper.createObjectNode()
                            .put("status", Status.ACCEPTED_202.code())
                            .set("notificatie", mapper.valueToTree(aangenomen(accepted)));
                case Acceptance.Refused refused -> {
                    ProblemException problem = DomainProblems.of(refused.reason());
                    // an item's problem asks its wait as a single request's would (the quota, the database)
                    String wait = problem.headers().get("Retry-After");
                    if (wait != null) {
                        retryAfter = Math.max(retryAfter, Long.parseLong(wait));
                    }
                    results[positions.get(k)] = refused(problem.under("/notificaties/" + positions.get(k)));
                }
            }
        }
        return retryAfter;
    }

    private ObjectNode refused(ProblemException problem) {
        ObjectNode result = mapper.createObjectNode().put("status", problem.status());
        result.set("probleem", problems.body(problem));
        return result;
    }

    /**
     * The acceptance's span: the request's own (its filter registered it), so a notification's trace starts at the
     * request that brought it; in the DV's trace when its {@code traceparent} was valid.
     */
    private static Span acceptanceSpan(ServerRequest request) {
        return request.context()
                .get(Span.class)
                .orElseGet(() -> TraceContexts.acceptance(request.headers().value(HeaderNames.create("traceparent"))));
    }

    private static Acceptance.Request decentraal(ServerRequest request, DecentraleNotificatieAanvraag body) {
        return new Acceptance.Request(
                "decentraal",
                body.getDvRef(),
                body.getBerichttype(),
                null,
                body.getEmailadres(),
                personalisation(body.getPersonalisation()),
                instant(body.getGeldigTot()),
                body.getBatchId(),
                acceptanceSpan(request));
    }

    private static Acceptance.Request centraal(ServerRequest request, CentraleNotificatieAanvraag body) {
        return new Acceptance.Request(
                "centraal",
                body.getDvRef(),
                body.getBerichttype(),
                body.getIdentificatieType().getValue(),
                body.getIdentificatieNummer(),
                personalisation(body.getPersonalisation()),
                instant(body.getGeldigTot()),
                body.getBatchId(),
                acceptanceSpan(request));
    }

    @Override
    protected void handleNotificatieAannemenDecentraal(
            ServerRequest request, ServerResponse response, DecentraleNotificatieAanvraag body) {
        accept(request, response, decentraal(request, body));
    }

    @Override
    protected void handleNotificatieAannemenCentraal(
            ServerRequest request, ServerResponse response, CentraleNotificatieAanvraag body) {
        accept(request, response, centraal(request, body));
    }

    /** Both regimes answer the same: 202 with id, status and versie, and the status's location. */
    private void accept(ServerRequest request, ServerResponse response, Acceptance.Request submission) {
        Acceptance.Accepted n = acceptance.accept(Callers.of(request), submission);
        if (n.created()) {
            RequestLimits.stored(request);
        }
        responses.jsonWithLocation(
                response, Status.ACCEPTED_202, ApiFilter.BASE_PATH + "/notificaties/" + n.id(), aangenomen(n));
    }

    private static NotificatieAangenomen aangenomen(Acceptance.Accepted n) {
        NotificatieAangenomen result = new NotificatieAangenomen();
        result.setId(n.id());
        result.setStatus(nl.overheid.moz.nmc.api.generated.dv.model.NotificatieStatus.fromValue(
                n.status().dbValue()));
        result.setVersie(n.version());
        return result;
    }

    private static Map<String, String> personalisation(Map<String, String> personalisation) {
        return personalisation == null ? Map.of() : personalisation;
    }

    private static Instant instant(OffsetDateTime time) {
        return time == null ? null : time.toInstant();
    }

    @Override
    protected void handleNotificatieOpvragen(ServerRequest request, ServerResponse response, UUID id) {
        Notificatie notificatie = status.byId(Callers.of(request), id)
                .map(NotificatiesResource::toModel)
                .orElseThrow(ProblemException::notFound);
        responses.json(response, Status.OK_200, notificatie);
    }

    @Override
    protected void handleNotificatiesZoeken(ServerRequest request, ServerResponse response, String dvRef) {
        if (dvRef == null || !DV_REF.matcher(dvRef).matches()) {
            throw ProblemException.invalid("dvRef", "pattern", "dvRef is verplicht: 1 tot 200 zichtbare ASCII-tekens.");
        }
        NotificatieLijst found = new NotificatieLijst();
        found.setNotificaties(status.byDvRef(Callers.of(request), dvRef, SEARCH_LIMIT).stream()
                .map(NotificatiesResource::toModel)
                .toList());
        responses.json(response, Status.OK_200, found);
    }

    @Override
    protected void handleNotificatieAnnuleren(ServerRequest request, ServerResponse response, UUID id) {
        Dienstverlener dv = Callers.of(request);
        cancellation.cancel(dv.id(), id);
        handleNotificatieOpvragen(request, response, id);
    }

    private static Notificatie toModel(StatusQueries.Snapshot snapshot) {
        var view = snapshot.view();
        var pogingen = snapshot.pogingen();
        Notificatie model = new Notificatie();
        model.setId(view.id());
        model.setStatus(nl.overheid.moz.nmc.api.generated.dv.model.NotificatieStatus.fromValue(
                view.status().dbValue()));
        model.setVersie(view.version());
        if (view.reden() != null) {
            model.setReden(nl.overheid.moz.nmc.api.generated.dv.model.Reden.fromValue(
                    view.reden().dbValue()));
        }
        model.setBerichttype(view.berichttype());
        model.setRegie(Notificatie.RegieEnum.fromValue(view.regime()));
        model.setBatchId(view.batchId());
        model.setGeldigTot(time(view.validUntil()));
        model.setAangenomenOp(time(view.acceptedAt()));
        model.setDefinitiefOp(time(view.definitiefOp()));
        model.setBezorgdOp(time(snapshot.deliveredAt()));
        model.setPogingen(pogingen.stream()
                .map(p -> {
                    Poging poging = new Poging();
                    poging.setNummer(p.number());
                    poging.setStatus(nl.overheid.moz.nmc.api.generated.dv.model.PogingStatus.fromValue(
                            p.status().dbValue()));
                    poging.setVerzondenOp(time(p.sentAt()));
                    poging.setAfgerondOp(time(p.receiptCompletedAt()));
                    poging.setBezorgbewijs(snapshot.isDeliveryProof(p));
                    return poging;
                })
                .toList());
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
