package nl.overheid.moz.nmc.ldv;

import java.util.Base64;
import nl.overheid.moz.nmc.privacy.Peppers;
import nl.overheid.moz.nmc.profiel.Identification;

/**
 * The data subject of a processing-log record, pseudonymised as MOZa's services compute {@code
 * dpl.core.data_subject_id} (their {@code HashHelper}): Base64 (standard alphabet, padded) of HMAC-SHA256 over the
 * UTF-8 bytes of the identifier itself — the number, or the e-mail address exactly as the DV gave it — under the
 * LDV's own pepper (never the dvRef's). With the same pepper the Profielservice's own records of a party carry the
 * same pseudonym. The type is the identifier's ({@code KVK}, {@code RSIN}, {@code BSN}, {@code EMAIL}); the pepper
 * version is kept beside it on the notification (for erasure under a compromised pepper), not in the record.
 */
public final class DataSubjects {

    /** The type of a data subject identified by e-mail address (the decentralised regime), as MOZa's NMC spells it. */
    public static final String EMAIL = "EMAIL";

    /** A pseudonymised data subject as the record carries it; {@code pepperVersion} is not part of the record. */
    public record DataSubject(String id, String type, Integer pepperVersion) {

        public DataSubject(String id, String type) {
            this(id, type, null);
        }
    }

    private final Peppers peppers;

    public DataSubjects(Peppers ldvPeppers) {
        this.peppers = ldvPeppers;
    }

    /** A party by its identification (centralised regime): the type as the Profielservice spells it. */
    public DataSubject party(Identification party) {
        return pseudonym(party.type().name(), party.number());
    }

    /** A recipient by e-mail address (decentralised regime: the DV gave no number). */
    public DataSubject email(String address) {
        return pseudonym(EMAIL, address);
    }

    private DataSubject pseudonym(String type, String identifier) {
        int version = peppers.currentVersion();
        return new DataSubject(Base64.getEncoder().encodeToString(peppers.hmac(version, identifier)), type, version);
    }
}
