package nl.overheid.moz.nmc.receipts;

import java.time.Clock;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.planning.NotificatieTasks;

/**
 * Step 3's door: a receipt is stored first (one transaction with its receipt task) and only then judged, by
 * {@link ReceiptProcessor}. The callback endpoint and reconciliation both come through here, so a receipt
 * is handled the same way whichever path found it.
 */
public final class ReceiptStore {

    /** What happened to an incoming receipt. */
    public enum Outcome {
        /** Stored with a receipt task. */
        STORED,
        /** The same receipt was stored before; nothing to do. */
        DUPLICATE,
        /** The reference names no attempt (of the services the callback's token is for): not stored, only counted. */
        UNKNOWN_REFERENCE
    }

    private final Database database;
    private final ReceiptRepository receiptRepository;
    private final NotificatieTasks tasks;
    private final Clock clock;

    public ReceiptStore(Database database, ReceiptRepository receiptRepository, NotificatieTasks tasks, Clock clock) {
        this.database = database;
        this.receiptRepository = receiptRepository;
        this.tasks = tasks;
        this.clock = clock;
    }

    /** Stores a receipt the NMC found itself (reconciliation). */
    public Outcome store(ReceiptRepository.Incoming receipt) {
        return store(null, receipt);
    }

    /**
     * Stores a receipt that a callback of {@code services} brought (null: any service): a reference to an
     * attempt of another NotifyNL service's berichttype names no attempt of the caller's.
     */
    public Outcome store(Set<String> services, ReceiptRepository.Incoming receipt) {
        return database.inTransaction(tx -> {
            Optional<ReceiptRepository.Target> target = receiptRepository.target(tx, receipt.poging());
            if (target.isEmpty()
                    || services != null && !services.contains(target.get().notifyService())) {
                return Outcome.UNKNOWN_REFERENCE;
            }
            Optional<Long> stored = receiptRepository.insert(tx, receipt, clock.instant());
            if (stored.isEmpty()) {
                return Outcome.DUPLICATE;
            }
            ReceiptRepository.Target t = target.get();
            tasks.planReceipt(
                    tx,
                    t.dvId(),
                    t.notificatie(),
                    t.poging(),
                    stored.get(),
                    receipt.completedAt(),
                    t.traceId(),
                    clock.instant());
            return Outcome.STORED;
        });
    }

    /** Parses a NotifyNL reference; a reference that is not an attempt id names no attempt. */
    public static Optional<UUID> pogingId(String reference) {
        if (reference == null || reference.length() != 36) {
            return Optional.empty();
        }
        try {
            return Optional.of(UUID.fromString(reference));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }
}
