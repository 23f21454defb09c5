package nl.overheid.moz.nmc.retention;

import io.helidon.dbclient.DbTransaction;
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
     * Marks a version compromised in {@code tx}; {@link #marked} once it is committed. Refused when no other
     * configured version could take over (configure the next version first): checked against the marks in the
     * database under a lock every instance takes, so two marks at once (two operators, two instances, one of them
     * a duty interval behind) cannot leave no version usable. Found by reading: checked against this instance's own
     * view, the second of two such marks committed, then failed with a 500 and no audit, and every acceptance after
     * it failed on every instance.
     */
    public void markCompromised(DbTransaction tx, Purpose purpose, int version) {
        retention.lockPepperMarks(tx);
        Set<Integer> marked = new HashSet<>();
        for (RetentionRepository.CompromisedPepper compromised : retention.compromisedPeppers(tx)) {
            if (compromised.purpose().equals(purpose.dbValue())) {
                marked.add(compromised.version());
            }
        }
        if (!peppers.get(purpose).hasUsableVersionBesides(version, marked)) {
            throw new Refused("no other usable " + purpose.dbValue() + " pepper version is configured; "
                    + "configure the next version first");
        }
        retention.markCompromised(tx, purpose.dbValue(), version, clock.instant());
    }

    /** After a mark's commit: this instance uses the version no more at once (the others within a duty interval). */
    public void marked(Purpose purpose, int version) {
        LOG.warning(() -> purpose.dbValue() + " pepper version " + version + " marked compromised");
        refresh();
    }

    /** {@link #markCompromised(DbTransaction, Purpose, int)} in a transaction of its own, then {@link #marked}. */
    public void markCompromised(Purpose purpose, int version) {
        database.inTransactionDo(tx -> markCompromised(tx, purpose, version));
        marked(purpose, version);
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
