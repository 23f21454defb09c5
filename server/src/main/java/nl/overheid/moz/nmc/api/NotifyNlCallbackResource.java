package nl.overheid.moz.nmc.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.OffsetDateTime;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.api.generated.notifynl.NotifyNlService;
import nl.overheid.moz.nmc.api.generated.notifynl.model.NotifyNlKlacht;
import nl.overheid.moz.nmc.api.generated.notifynl.model.NotifyNlOntvangst;
import nl.overheid.moz.nmc.api.generated.notifynl.model.NotifynlOntvangstVerwerkenRequest;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.receipts.CallbackTokens;
import nl.overheid.moz.nmc.receipts.ReceiptRepository;
import nl.overheid.moz.nmc.receipts.ReceiptStore;

/**
 * NotifyNL's delivery-receipt callback: authenticate (the bearer token configured at NotifyNL for a service),
 * store the receipt first (without the recipient's address), answer 200, and let a receipt task judge it. A
 * receipt that fails authentication, or names no attempt of the services its token is for, is not stored,
 * only counted. A complaint callback on the same URL ({@code complaint_id}) is counted and answered 200, never a
 * status change: NotifyNL does not change the notification's status for it either.
 */
public final class NotifyNlCallbackResource extends NotifyNlService {

    private static final Logger LOG = Logger.getLogger(NotifyNlCallbackResource.class.getName());

    private final CallbackTokens tokens;
    private final ReceiptStore store;
    private final JsonBodies bodies;
    private final Runnable onStored;
    private final NmcMetrics metrics;

    public NotifyNlCallbackResource(
            CallbackTokens tokens, ReceiptStore store, JsonBodies bodies, Runnable onStored, NmcMetrics metrics) {
        this.tokens = tokens;
        this.store = store;
        this.bodies = bodies;
        this.onStored = onStored;
        this.metrics = metrics;
    }

    /*
     * The body is a delivery receipt or a complaint (the contract's oneOf); the generated binding would merge the two
     * shapes into one model, so the routing method reads and validates the body itself, against the one schema its
     * shape names, as the bulk requests of the DV API do.
     */
    @Override
    protected void notifynlOntvangstVerwerken(ServerRequest request, ServerResponse response) {
        // Authenticate before reading the body, in constant time per configured token (CallbackTokens).
        Set<String> services = request.headers()
                .value(HeaderNames.AUTHORIZATION)
                .filter(value -> value.regionMatches(true, 0, "Bearer ", 0, 7))
                .map(value -> tokens.services(value.substring(7).trim()))
                .orElse(Set.of());
        if (services.isEmpty()) {
            metrics.receiptRejected();
            throw ProblemException.unauthorized("De callback-token is onjuist.");
        }
        // A receipt refused here is lost (NotifyNL does not retry a 4xx): counted, as an unknown reference is.
        JsonNode tree;
        try {
            tree = bodies.tree(request);
        } catch (ProblemException unreadable) {
            metrics.receiptRejected();
            throw unreadable;
        }
        boolean complaint = tree.isObject() && tree.has("complaint_id");
        String schema = complaint ? "NotifyNlKlacht" : "NotifyNlOntvangst";
        List<ProblemException.FieldError> errors = bodies.errors(schema, tree, "");
        if (!errors.isEmpty()) {
            metrics.receiptRejected();
            throw ProblemException.invalid(errors);
        }
        if (complaint) {
            complained(response, bodies.bind(tree, NotifyNlKlacht.class).getNotificationId());
        } else {
            received(response, services, bodies.bind(tree, NotifyNlOntvangst.class));
        }
    }

    /* Reached only by a caller that bound the body itself; answers exactly as the routing method does. */
    @Override
    protected void handleNotifynlOntvangstVerwerken(
            ServerRequest request, ServerResponse response, NotifynlOntvangstVerwerkenRequest body) {
        throw new IllegalStateException("the callback's body is bound by notifynlOntvangstVerwerken");
    }

    /**
     * A complaint: a recipient's provider reported the e-mail as spam. NotifyNL keeps the notification's status, and so
     * does the NMC; it is counted and logged without the address.
     */
    private void complained(ServerResponse response, UUID notifyId) {
        metrics.notifyNlComplaint();
        LOG.info(() -> "NotifyNL complaint about notification " + notifyId + " counted; no status changes");
        response.status(Status.OK_200);
        response.send();
    }

    private void received(ServerResponse response, Set<String> services, NotifyNlOntvangst receipt) {
        Optional<UUID> poging = ReceiptStore.pogingId(receipt.getReference());
        ReceiptStore.Outcome outcome = poging.map(id -> store.store(
                        services,
                        new ReceiptRepository.Incoming(
                                id,
                                receipt.getId(),
                                receipt.getStatus(),
                                instant(receipt.getCreatedAt()),
                                instant(receipt.getCompletedAt()),
                                instant(receipt.getSentAt()),
                                receipt.getNotificationType(),
                                receipt.getTemplateId(),
                                receipt.getTemplateVersion())))
                .orElse(ReceiptStore.Outcome.UNKNOWN_REFERENCE);
        switch (outcome) {
            case STORED -> onStored.run();
            case DUPLICATE -> LOG.fine("receipt stored before; NotifyNL retried the callback");
            case UNKNOWN_REFERENCE -> {
                metrics.receiptRejected();
                LOG.info("receipt with a reference that names no attempt of the token's NotifyNL services; not stored");
            }
        }
        // 200 also for an unknown reference: NotifyNL retrying it would not make it known.
        response.status(Status.OK_200);
        response.send();
    }

    private static java.time.Instant instant(OffsetDateTime time) {
        return time == null ? null : time.toInstant();
    }

    @Override
    public void afterStop() {
        // the generated default prints to stdout; the server logs its own shutdown
    }
}
