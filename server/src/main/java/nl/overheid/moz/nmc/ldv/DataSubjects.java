package nl.overheid.moz.nmc.ldv;

import java.util.HexFormat;
import java.util.Locale;
import nl.overheid.moz.nmc.privacy.Peppers;
import nl.overheid.moz.nmc.profiel.Identification;

/**
 * The data subject of an LDV record, pseudonymised: HMAC-SHA256 under the LDV's own pepper (never the
 * dvRef's), current version; the version is part of the type, so a record stays interpretable after a
 * new pepper version.
 */
public final class DataSubjects {

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
        return pseudonym("emailadres", address.strip().toLowerCase(Locale.ROOT));
    }

    private DataSubject pseudonym(String kind, String value) {
        int version = peppers.currentVersion();
        String id = HexFormat.of().formatHex(peppers.hmac(version, kind + "\u0000" + value));
        return new DataSubject(id, kind + ";hmac-sha256;pepper-v" + version, version);
    }
}
