package nl.overheid.moz.nmc.sending;

import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.trace.Span;

/**
 * NotifyNL as the NMC uses it (GOV.UK Notify API v2). Every method classifies the answer so callers never
 * see HTTP details: a refusal of the attempt is {@link SendResult.Rejected}; anything that concerns the call
 * (401, 403, 429, 5xx, connection error, time-out) is {@link SendResult.Unavailable} and costs no attempt.
 * Every call continues the notification's trace ({@code traceparent} of {@code span}).
 */
public interface NotifyNl {

    SendResult sendEmail(
            UUID templateId, String emailAddress, Map<String, String> personalisation, UUID reference, Span span);

    /**
     * Every notification NotifyNL sent with this reference (attempt id), newest first, across its pages: more than
     * one when the attempt was POSTed more than once.
     */
    ReferenceLookup findAllByReference(UUID reference, Span span);

    /** The newest notification sent with this reference (attempt id), if NotifyNL knows one. */
    default Lookup findByReference(UUID reference, Span span) {
        return switch (findAllByReference(reference, span)) {
            case ReferenceLookup.Found all ->
                all.notifications().isEmpty()
                        ? new Lookup.NotFound()
                        : all.notifications().getFirst();
            case ReferenceLookup.Unavailable down -> new Lookup.Unavailable(down.reason());
        };
    }

    /** The notification NotifyNL knows under this id. */
    Lookup findById(UUID notifyId, Span span);

    /** The outcome of a send. */
    sealed interface SendResult {
        /** 201: NotifyNL accepted the e-mail under {@code notifyId}. */
        record Accepted(UUID notifyId) implements SendResult {}

        /** 400: NotifyNL refuses this e-mail (e.g. an address it will not send to). */
        record Rejected(String reason) implements SendResult {}

        /**
         * The call failed; try again later. {@code reason} is a short code, never personal data.
         * {@code mayHaveArrived}: a time-out, broken connection or 5xx leaves open whether NotifyNL accepted
         * the e-mail; a refused connection, 401, 403 or 429 does not.
         */
        record Unavailable(String reason, boolean mayHaveArrived) implements SendResult {}
    }

    /** The outcome of a lookup by reference of every notification under it. */
    sealed interface ReferenceLookup {
        /** What NotifyNL has under the reference, newest first; empty: nothing. */
        record Found(java.util.List<Lookup.Found> notifications) implements ReferenceLookup {}

        record Unavailable(String reason) implements ReferenceLookup {}
    }

    /** The outcome of a lookup. */
    sealed interface Lookup {
        /** NotifyNL knows it, with its current status and completed_at (if final). */
        record Found(UUID notifyId, String status, Optional<Instant> completedAt) implements Lookup {}

        record NotFound() implements Lookup {}

        record Unavailable(String reason) implements Lookup {}
    }
}
