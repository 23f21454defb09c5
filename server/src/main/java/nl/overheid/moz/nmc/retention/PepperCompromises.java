package nl.overheid.moz.nmc.retention;

import java.time.Clock;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;
import nl.overheid.moz.nmc.privacy.Peppers;

/**
 * Pepper versions an operator marked compromised (design §9): from then on no new row uses them (every
 * instance learns it within a duty interval; the one that marks at once), and the rows under them are
 * erased early — at once when terminal, at their terminal status otherwise
 * ({@link NotificatieRetention} brings their erasure forward). Search keeps trying every version still
 * configured, so {@code GET ?dvRef=} finds the rows under a compromised version while they exist.
 */
public final class PepperCompromises implements Duty {

    private static final Logger LOG = Logger.getLogger(PepperCompromises.class.getName());

    /** The purposes of the NMC's peppers, as the database names them. */
    public enum Purpose {
        DVREF("dvref"),
        PAYLOAD("payload"),
        LDV("ldv");

        private final String dbValue;

        Purpose(String dbValue) {
            this.dbValue = dbValue;
        }

        public String dbValue() {
            return dbValue;
        }
    }

    /** Why a version cannot be marked. */
    public static final class Refused extends RuntimeException {
        Refused(String message) {
            super(message, null, false, false);
        }
    }

    private final Database database;
    private final RetentionRepository retention;
    private final Map<Purpose, Peppers> peppers;
    private final Clock clock;

    public PepperCompromises(
            Database database, RetentionRepository retention, Map<Purpose, Peppers> peppers, Clock clock) {
        this.database = database;
        this.retention = retention;
        this.peppers = Map.copyOf(peppers);
        this.clock = clock;
    }

    /**
     * Marks a version compromised. Refused when no other configured version could take over (configure the
     * next version first).
     */
    public void markCompromised(Purpose purpose, int version) {
        Peppers ring = peppers.get(purpose);
        if (!ring.hasUsableVersionBesides(version)) {
            throw new Refused("no other usable " + purpose.dbValue() + " pepper version is configured; "
                    + "configure the next version first");
        }
        database.inTransactionDo(tx -> retention.markCompromised(tx, purpose.dbValue(), version, clock.instant()));
        LOG.warning(() -> purpose.dbValue() + " pepper version " + version + " marked compromised");
        refresh();
    }

    @Override
    public String name() {
        return "compromised peppers";
    }

    /** Reads the marked versions into every pepper ring. */
    @Override
    public int runOnce() {
        refresh();
        return 0;
    }

    public void refresh() {
        Map<Purpose, Set<Integer>> marked = new java.util.EnumMap<>(Purpose.class);
        for (Purpose purpose : Purpose.values()) {
            marked.put(purpose, new HashSet<>());
        }
        database.inTransaction(retention::compromisedPeppers).forEach(compromised -> {
            for (Purpose purpose : Purpose.values()) {
                if (purpose.dbValue().equals(compromised.purpose())) {
                    marked.get(purpose).add(compromised.version());
                }
            }
        });
        marked.forEach((purpose, versions) -> peppers.get(purpose).compromised(versions));
        // Every purpose must keep a usable version (refuses a start whose configuration dropped the last one).
        peppers.forEach((purpose, ring) -> {
            try {
                ring.currentVersion();
            } catch (IllegalStateException e) {
                throw new IllegalStateException(
                        "privacy: every configured " + purpose.dbValue()
                                + " pepper version is marked compromised; configure a new version",
                        e);
            }
        });
    }
}
