package nl.overheid.moz.nmc.ldv;

import java.time.Instant;
import nl.overheid.moz.nmc.trace.Span;

/**
 * The Logboek Dataverwerkingen as the NMC writes to it (design §9): before every call that processes or
 * provides personal data, one record, and the call happens only after the logbook acknowledged it.
 */
public interface ProcessingLog {

    /** Writes the record and waits for the acknowledgement. Never throws for a failure of the logbook. */
    Written record(Processing processing);

    /**
     * One processing operation: the span of the call it is about, what kind of operation it is, the
     * processing activity (from the berichttype) and the pseudonymised data subject.
     */
    record Processing(
            Span span, Operation operation, String processingActivity, DataSubjects.DataSubject subject, Instant at) {}

    /** The operations the NMC performs on personal data, named as in its LDV records. */
    enum Operation {
        /** Profielservice: the e-mail address of a business by identifying number. */
        CONTACTGEGEVENS_OPVRAGEN("nmc.profielservice.contactgegevens-opvragen"),
        /** NotifyNL: the e-mail is handed over for sending. */
        EMAIL_VERSTUREN("nmc.notifynl.email-versturen"),
        /** NotifyNL: the status of a sent e-mail is asked (its answer holds the address). */
        STATUS_OPVRAGEN("nmc.notifynl.status-opvragen"),
        /** Profielservice: the business's address is reported invalid. */
        EMAILADRES_ONGELDIG_MELDEN("nmc.profielservice.emailadres-ongeldig-melden"),
        /** The DV's webhook: the notification's status change is pushed to the DV. */
        STATUS_TERUGKOPPELEN("nmc.dv.status-terugkoppelen");

        private final String recordName;

        Operation(String recordName) {
            this.recordName = recordName;
        }

        public String recordName() {
            return recordName;
        }
    }

    /** Whether the logbook acknowledged the record. */
    sealed interface Written {
        record Acknowledged(String id) implements Written {}

        /** No acknowledgement (error, time-out, an answer outside the contract): the call must not happen. */
        record Unavailable(String reason) implements Written {}
    }
}
