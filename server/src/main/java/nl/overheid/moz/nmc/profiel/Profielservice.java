package nl.overheid.moz.nmc.profiel;

import java.util.UUID;
import nl.overheid.moz.nmc.trace.Span;

/**
 * The Profielservice as the NMC uses it in the centralised regime: the e-mail address of a business by its
 * identifying number, and the report that an address bounced permanently. Every answer is classified, so a
 * caller never sees HTTP: a failure of the call is {@code Unavailable} and costs no attempt.
 */
public interface Profielservice {

    /** The business's e-mail address; called inside the send task, right before NotifyNL. */
    Lookup lookUp(String kvkNummer, Span span);

    /** Reports the business's address invalid; idempotent on {@code meldingId}. */
    Report reportInvalid(UUID reportId, String kvkNummer, Span span);

    /** The outcome of a lookup. */
    sealed interface Lookup {
        /** The address to send to. Never stored, logged or put in a task payload. */
        record Found(String emailadres) implements Lookup {
            @Override
            public String toString() {
                return "Found[emailadres=…]";
            }
        }

        /** No address to send to: the party is unknown, or has no e-mail preference. */
        record NoContact(Reason reason) implements Lookup {}

        /** The call failed (error, 429, time-out, connection, an answer outside the contract): try later. */
        record Unavailable(String reason) implements Lookup {}
    }

    /** Why a lookup found no address; to the DV both are {@code geen-contactgegevens}. */
    enum Reason {
        UNKNOWN_PARTY,
        NO_EMAIL_PREFERENCE
    }

    /** The outcome of a report. */
    sealed interface Report {
        record Reported() implements Report {}

        record Unavailable(String reason) implements Report {}
    }
}
