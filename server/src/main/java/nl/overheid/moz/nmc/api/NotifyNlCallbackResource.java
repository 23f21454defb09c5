package nl.overheid.moz.nmc.api;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.api.generated.notifynl.NotifyNlService;
import nl.overheid.moz.nmc.api.generated.notifynl.ValidatorUtils;
import nl.overheid.moz.nmc.api.generated.notifynl.model.NotifyNlOntvangst;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.receipts.CallbackTokens;
import nl.overheid.moz.nmc.receipts.ReceiptRepository;
import nl.overheid.moz.nmc.receipts.ReceiptStore;

/**
 * NotifyNL's delivery-receipt callback: authenticate (the bearer token configured at NotifyNL for a service),
 * store the receipt first (without the recipient's address), answer 200, and let a receipt task judge it. A
 * receipt that fails authentication, or names no attempt of the services its token is for, is not stored,
 * only counted.
 */
public final class NotifyNlCallbackResource extends NotifyNlService {

    private static final Logger LOG = Logger.getLogger(NotifyNlCallbackResource.class.getName());

    /** The services of the token of the request being handled (set by the authentication, read by the store). */
    private static final String SERVICES = NotifyNlCallbackResource.class.getName() + ".services";

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
        request.context().register(SERVICES, services);
        super.notifynlOntvangstVerwerken(request, response);
    }

    @Override
    protected NotifynlOntvangstVerwerkenOp createNotifynlOntvangstVerwerkenOp() {
        return new NotifynlOntvangstVerwerkenOp() {
            @Override
            protected NotifyNlOntvangst notifyNlOntvangst(ServerRequest request, ValidatorUtils.Validator validator) {
                return bodies.read(request, "NotifyNlOntvangst", NotifyNlOntvangst.class);
            }
        };
    }

    @Override
    protected void handleNotifynlOntvangstVerwerken(
            ServerRequest request, ServerResponse response, NotifyNlOntvangst receipt) {
        Optional<UUID> poging = ReceiptStore.pogingId(receipt.getReference());
        @SuppressWarnings("unchecked")
        Set<String> services = request.context().get(SERVICES, Set.class).orElse(Set.of());
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
