package nl.overheid.moz.nmc.profiel;

import java.util.List;
import java.util.UUID;
import nl.overheid.moz.nmc.trace.Span;

/**
 * The MOZa Profielservice as the NMC uses it in the centralised regime (its real contract, {@code
 * api-spec/profielservice.yaml}): a party's contact data right before a send, and the soft delete of an address
 * that bounced. Every answer is classified, so a caller never sees HTTP: a failure of the call, or an answer
 * outside the contract, is {@code Unavailable} and costs no attempt.
 */
public interface Profielservice {

    /**
     * A call about to be made: its span (the {@code traceparent} it carries) and, when the Profielservice is reached
     * through FSC, the fresh {@code Fsc-Transaction-Id} it will carry — known before the call, so the processing-log
     * record written before it can name it.
     */
    record Call(Span span, String fscTransactionId) {}

    /** A new call under {@code span}: with a fresh FSC transaction id when FSC is configured. */
    Call call(Span span);

    /**
     * The party's contact data, narrowed by the Profielservice to the DV ({@code dienstverlenerNaam}) and the
     * berichttype's dienst ({@code dienstNaam}, null for none); {@link AddressChoice} picks the address.
     */
    Lookup lookUp(Identification party, String dienstverlenerNaam, String dienstNaam, Call call);

    /** Soft-deletes the party's contactgegeven (the address NotifyNL bounced). */
    Removal remove(UUID contactgegevenId, Identification party, Call call);

    /** The outcome of a lookup. */
    sealed interface Lookup {
        /** The party's contact data as answered (possibly without any e-mail address). */
        record Found(List<AddressChoice.Contact> contacts) implements Lookup {}

        /** The Profielservice's own 404: no such party, or it was deleted. */
        record PartyUnknown() implements Lookup {}

        /** The call failed (error, time-out, connection, an answer outside the contract): try later. */
        record Unavailable(String reason) implements Lookup {}
    }

    /** The outcome of a delete. */
    sealed interface Removal {
        /** 204: deleted now. */
        record Removed() implements Removal {}

        /** The Profielservice's own 404: deleted before (a repeat), or no longer there; counts as done. */
        record AlreadyGone() implements Removal {}

        /** The call failed: try later. */
        record Unavailable(String reason) implements Removal {}
    }
}
