package nl.overheid.moz.nmc.ldv;

import java.time.Instant;
import nl.overheid.moz.nmc.trace.Span;

/**
 * The Logboek Dataverwerkingen as the NMC writes to it (design §9): before every call that processes or provides
 * personal data, one record, and the call happens only after the store acknowledged it (fail-closed); a call that
 * then fails leaves an ERROR record for that processing, so the log never claims a processing that did not happen.
 */
public interface ProcessingLog extends AutoCloseable {

    /**
     * Writes the record of a processing about to happen and waits until the store has it. Never throws for a failure
     * of the store: that is {@code Unavailable}, and the call must not happen.
     */
    Written record(Processing processing);

    /**
     * The call that {@code processing} recorded has failed ({@code reason}: a short class such as {@code http-503},
     * never a message): an ERROR record for it, a child of its record. Best effort: a store that fails now only
     * counts and logs it (the processing's own record was written before the call, as it must be).
     */
    void failed(Processing processing, String reason, Instant at);

    /**
     * The {@link #failed} reason of a call whose record was written but which was then not made (its claim lost, its
     * deadline passed): the log never claims a processing that did not happen.
     */
    String NOT_CALLED = "not-called";

    @Override
    default void close() {}

    /**
     * One processing operation: the span of the call it is about (the call carries it as {@code traceparent}), what
     * kind of operation it is, the processing activity (from the berichttype), the pseudonymised data subject, the
     * moment, and — for the DV's webhook, whose address is per DV — the party called ({@code processor}; for NotifyNL
     * and the Profielservice the store's configuration knows it); {@code fscTransactionId} the call's {@code
     * Fsc-Transaction-Id} when it goes through FSC, else null.
     */
    record Processing(
            Span span,
            Operation operation,
            String processingActivity,
            DataSubjects.DataSubject subject,
            Instant at,
            String processor,
            String fscTransactionId) {

        /** A call to NotifyNL or the Profielservice without FSC. */
        public Processing(
                Span span,
                Operation operation,
                String processingActivity,
                DataSubjects.DataSubject subject,
                Instant at) {
            this(span, operation, processingActivity, subject, at, null, null);
        }
    }

    /** The parties the NMC calls with personal data. */
    enum Party {
        NOTIFYNL,
        PROFIELSERVICE,
        /** The DV itself (its webhook): the address comes with the processing. */
        DIENSTVERLENER
    }

    /** The operations the NMC performs on personal data, named as in its LDV records. */
    enum Operation {
        /** Profielservice: the e-mail address of a business by identifying number. */
        CONTACTGEGEVENS_OPVRAGEN("nmc.profielservice.contactgegevens-opvragen", Party.PROFIELSERVICE),
        /** NotifyNL: the e-mail is handed over for sending. */
        EMAIL_VERSTUREN("nmc.notifynl.email-versturen", Party.NOTIFYNL),
        /** NotifyNL: the status of a sent e-mail is asked (its answer holds the address). */
        STATUS_OPVRAGEN("nmc.notifynl.status-opvragen", Party.NOTIFYNL),
        /** Profielservice: the address that bounced is reported invalid (the soft delete of its contactgegeven). */
        EMAILADRES_ONGELDIG_MELDEN("nmc.profielservice.emailadres-ongeldig-melden", Party.PROFIELSERVICE),
        /** The DV's webhook: the notification's status change is pushed to the DV. */
        STATUS_TERUGKOPPELEN("nmc.dv.status-terugkoppelen", Party.DIENSTVERLENER);

        private final String recordName;
        private final Party party;

        Operation(String recordName, Party party) {
            this.recordName = recordName;
            this.party = party;
        }

        public String recordName() {
            return recordName;
        }

        public Party party() {
            return party;
        }
    }

    /** Whether the store acknowledged the record. */
    sealed interface Written {
        record Acknowledged() implements Written {}

        /**
         * Not stored (down, slow, refused, full, no table, ...): the call must not happen. {@code reason} is a short
         * class ({@code connection}, {@code timeout}, ...), for the task's postponement.
         */
        record Unavailable(String reason) implements Written {}
    }
}
