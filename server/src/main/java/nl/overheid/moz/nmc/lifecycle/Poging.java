package nl.overheid.moz.nmc.lifecycle;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * One send attempt. Its id is the {@code reference} sent to NotifyNL.
 *
 * @param number             1 for the first send, 2 for the resend
 * @param requestedAt        when the first POST to NotifyNL was made for it (null: never)
 * @param receiptCompletedAt completed_at of the last receipt recorded on it (receipt ordering; its latest outcome)
 * @param deliveryProofAt    the delivery proof while the notification's bezorgd rests on this attempt: the
 *                           completed_at of the delivered that made it so (the first); null on every other attempt
 * @param requests           how many POSTs to NotifyNL were made for it
 * @param notifyService      the NotifyNL service it was POSTed with (null: never, or before V30 kept it)
 */
public record Poging(
        UUID id,
        UUID notificatie,
        int number,
        PogingStatus status,
        UUID notifyId,
        List<UUID> duplicateNotifyIds,
        Instant sentAt,
        Instant requestedAt,
        Instant receiptCompletedAt,
        Instant deliveryProofAt,
        int requests,
        String notifyService) {

    /** Whether a POST for this attempt was ever made: it may be at NotifyNL even without an answer. */
    public boolean requested() {
        return requestedAt != null;
    }

    /**
     * Whether more than one POST was made for it (a re-claim sent again): NotifyNL may hold an e-mail under it whose
     * id the NMC never learnt, so reconciliation also asks by reference.
     */
    public boolean maybeSentTwice() {
        return requests > 1;
    }

    /** Whether a receipt with this NotifyNL id belongs to this attempt without being a new duplicate. */
    public boolean knows(UUID id) {
        return id.equals(notifyId) || duplicateNotifyIds.contains(id);
    }
}
