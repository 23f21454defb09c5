package nl.overheid.moz.nmc.api;

import io.helidon.http.HeaderNames;
import io.helidon.http.Status;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.OffsetDateTime;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.api.generated.notifynl.NotifyNlService;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.api.generated.notifynl.ValidatorUtils;
import nl.overheid.moz.nmc.api.generated.notifynl.model.NotifyNlOntvangst;
import nl.overheid.moz.nmc.receipts.OntvangstRepository;
import nl.overheid.moz.nmc.receipts.ReceiptStore;

/**
 * NotifyNL's delivery-receipt callback: authenticate (the bearer token configured at NotifyNL), store the
 * receipt first (without the recipient's address), answer 200, and let a receipt task judge it. A receipt
 * that fails authentication or names no attempt is not stored, only counted.
 */
public final class NotifyNlCallbackResource extends NotifyNlService {

    private static final Logger LOG = Logger.getLogger(NotifyNlCallbackResource.class.getName());

    private final byte[] expectedToken;
    private final ReceiptStore store;
    private final JsonBodies bodies;
    private final Runnable onStored;
    private final NmcMetrics metrics;

    public NotifyNlCallbackResource(String bearerToken, ReceiptStore store, JsonBodies bodies, Runnable onStored,
                                    NmcMetrics metrics) {
        if (bearerToken == null || bearerToken.length() < 16) {
            throw new IllegalArgumentException("notifynl.callback-token must be at least 16 characters");
        }
        this.expectedToken = bearerToken.getBytes(StandardCharsets.UTF_8);
        this.store = store;
        this.bodies = bodies;
        this.onStored = onStored;
        this.metrics = metrics;
    }

    @Override
    protected void notifynlOntvangstVerwerken(ServerRequest request, ServerResponse response) {
        // Authenticate before reading the body. MessageDigest.isEqual takes the same time whatever the content;
        // its time follows only the length of its first argument, the presented token, never the secret's.
        Optional<String> token = request.headers().value(HeaderNames.AUTHORIZATION)
                .filter(value -> value.regionMatches(true, 0, "Bearer ", 0, 7))
                .map(value -> value.substring(7).trim());
        if (token.isEmpty() || !MessageDigest.isEqual(token.get().getBytes(StandardCharsets.UTF_8), expectedToken)) {
            metrics.receiptRejected();
            throw ProblemException.unauthorized("De callback-token is onjuist.");
        }
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
    protected void handleNotifynlOntvangstVerwerken(ServerRequest request, ServerResponse response,
                                                    NotifyNlOntvangst receipt) {
        Optional<UUID> attempt = ReceiptStore.attemptId(receipt.getReference());
        ReceiptStore.Outcome outcome = attempt.map(id -> store.store(new OntvangstRepository.Incoming(id,
                        receipt.getId(), receipt.getStatus(), instant(receipt.getCreatedAt()),
                        instant(receipt.getCompletedAt()), instant(receipt.getSentAt()), receipt.getNotificationType(),
                        receipt.getTemplateId(), receipt.getTemplateVersion())))
                .orElse(ReceiptStore.Outcome.UNKNOWN_REFERENCE);
        switch (outcome) {
            case STORED -> onStored.run();
            case DUPLICATE -> LOG.fine("receipt stored before; NotifyNL retried the callback");
            case UNKNOWN_REFERENCE -> {
                metrics.receiptRejected();
                LOG.info("receipt with a reference that names no attempt; not stored");
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
