package nl.overheid.moz.nmc.sending;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.trace.Span;

/**
 * NotifyNL as the NMC uses it (GOV.UK Notify API v2; the contract is {@code api-spec/notifynl.yaml}). Every
 * method classifies the answer ({@link NotifyNlAnswers}) so callers never see HTTP details: only NotifyNL's
 * refusal of the address is {@link SendResult.Rejected}; a refusal that says the NMC's or NotifyNL's setup is
 * wrong (template, personalisation, trial mode, permission, key, service) is {@link SendResult.SetupFailure} and
 * never blamed on the notification; the service's daily limit is {@link SendResult.DailyLimit}; anything else
 * that concerns the call (the per-minute rate limit, 5xx, a connection error, a time-out) is
 * {@link SendResult.Unavailable} and costs no attempt. Every call about a notification continues its trace
 * ({@code traceparent} of {@code span}).
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

    /**
     * The template's placeholders ({@code GET /v2/template/{id}}, its {@code personalisation}): no personal data is
     * processed, so the call has no LDV record and a trace of its own.
     */
    TemplateLookup template(UUID templateId);

    /** The outcome of a send. */
    sealed interface SendResult {
        /** 201: NotifyNL accepted the e-mail under {@code notifyId}. */
        record Accepted(UUID notifyId) implements SendResult {}

        /**
         * 400 about the address: NotifyNL will not send to it ({@code ValidationError} on {@code email_address},
         * {@code InvalidEmailError}). The only refusal that ends a notification {@code niet-bezorgbaar}.
         */
        record Rejected(String reason) implements SendResult {}

        /**
         * A refusal that says the setup is wrong, not the notification: the same e-mail would be accepted once an
         * operator fixed it. Postponed, and after a bounded number of tries parked for an operator.
         */
        record SetupFailure(SetupError error) implements SendResult {}

        /**
         * 429 {@code TooManyRequestsError}: the service's daily limit for e-mail is used up. Nothing more can be sent
         * through it until the limit's window has passed.
         */
        record DailyLimit() implements SendResult {}

        /**
         * The call failed; try again later. {@code reason} is a short code, never personal data.
         * {@code mayHaveArrived}: a time-out, broken connection or 5xx leaves open whether NotifyNL accepted
         * the e-mail; a refused connection or a 4xx does not.
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

        /** NotifyNL's own 404 ({@code NoResultFound}): it does not know the notification (any more). */
        record NotFound() implements Lookup {}

        record Unavailable(String reason) implements Lookup {}
    }

    /** The outcome of a template lookup. */
    sealed interface TemplateLookup {
        /** The template's placeholders, as NotifyNL spells them (subject first, then body, each once). */
        record Found(List<String> placeholders, int version) implements TemplateLookup {}

        /** NotifyNL's own 404: the service has no such template. */
        record NotFound() implements TemplateLookup {}

        record Unavailable(String reason) implements TemplateLookup {}
    }
}
