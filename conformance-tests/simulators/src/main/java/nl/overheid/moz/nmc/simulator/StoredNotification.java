package nl.overheid.moz.nmc.simulator;

import java.time.Instant;
import java.util.Map;
import java.util.UUID;

/**
 * One accepted e-mail as Notify keeps it. Immutable: the status is a function of time, {@code pending} until
 * {@code completedAt} and final from then on (Notify's {@code updated_at}, which its API calls
 * {@code completed_at}).
 *
 * @param sequence               creation order, for "newest first" listings
 * @param serviceId              the service that sent it (whose key signed the request); only it can see it
 * @param reference              the client's {@code reference}, or null
 * @param personalisation        unmodifiable
 * @param oneClickUnsubscribeUrl the request's {@code one_click_unsubscribe_url}, or null
 * @param sentAt                 when handed to the provider, or null when it never was
 * @param completedAt            when the final status is reached
 * @param finalStatus            the status from {@code completedAt} on: the recipient's, or a later outcome
 */
record StoredNotification(
        long sequence,
        UUID id,
        UUID serviceId,
        String reference,
        String emailAddress,
        UUID templateId,
        Map<String, Object> personalisation,
        String oneClickUnsubscribeUrl,
        String subject,
        String body,
        Instant createdAt,
        Instant sentAt,
        Instant completedAt,
        SimulatedRecipient recipient,
        String finalStatus) {

    /** Every template in the simulator is at version 1. */
    static final int TEMPLATE_VERSION = 1;

    String statusAt(Instant now) {
        return isCompletedAt(now) ? finalStatus : recipient.pendingStatus();
    }

    /** Notify's {@code completed_at}: null until the status is a completed one. */
    Instant completedAtOrNull(Instant now) {
        return isCompletedAt(now) ? completedAt : null;
    }

    boolean isCompletedAt(Instant now) {
        return !now.isBefore(completedAt);
    }

    /** The same e-mail with a later outcome, final from {@code at} (a late bounce or delivery report). */
    StoredNotification withOutcome(String status, Instant at) {
        return new StoredNotification(
                sequence,
                id,
                serviceId,
                reference,
                emailAddress,
                templateId,
                personalisation,
                oneClickUnsubscribeUrl,
                subject,
                body,
                createdAt,
                sentAt == null ? at : sentAt,
                at,
                recipient,
                status);
    }

    /** A second notification of the same e-mail (same reference, recipient and content), final in {@code status}. */
    StoredNotification duplicate(long newSequence, UUID newId, String status, Instant at) {
        return new StoredNotification(
                newSequence,
                newId,
                serviceId,
                reference,
                emailAddress,
                templateId,
                personalisation,
                oneClickUnsubscribeUrl,
                subject,
                body,
                at,
                at,
                at,
                recipient,
                status);
    }

    @Override
    public String toString() {
        return "StoredNotification[id=" + id + ", serviceId=" + serviceId + ", reference=" + reference + ", recipient="
                + recipient + ", status=" + finalStatus + "]";
    }
}
