package nl.overheid.moz.nmc.maintenance;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;

/**
 * Keeps a range partition of the event log ahead of the transaction ids, so the feed keeps reading only
 * the partitions from the cursor on and a new partition never has to be carved out of the default one.
 * Should the upkeep have lagged anyway, the rows that fell into {@code event_default} are first moved into a
 * range partition of their own: until then no partition can be made over them, and retention never drops the
 * default. The work is the SQL functions {@code event_partition_ensure_next} (V4) and {@code
 * event_default_adopt} (V7), which know the catalogue, called through {@link PartitionRepository}; each step
 * runs under {@link ShortLocks}.
 */
public final class EventPartitions implements Duty {

    private static final Logger LOG = Logger.getLogger(EventPartitions.class.getName());
    /** The next partition is created when the current one is this full (design §6: 80%). */
    public static final double FILL_RATIO = 0.8;
    /** Ranges adopted from the default partition per round at most, each in its own transaction. */
    static final int MAX_ADOPTIONS_PER_ROUND = 10;

    private final Database database;
    private final PartitionRepository partitions;

    public EventPartitions(Database database, PartitionRepository partitions) {
        this.database = database;
        this.partitions = partitions;
    }

    /** A range partition made for rows of the default partition, and how many rows moved into it. */
    public record Adopted(String partition, long rows) {}

    /** Creates the next partition when it is due; returns its name if one was created. */
    public Optional<String> ensureNext(double fillRatio) {
        Optional<String> created = ShortLocks.tryInTransaction(
                        database, partitions, tx -> partitions.ensureNext(tx, fillRatio))
                .flatMap(name -> name);
        created.ifPresent(name -> LOG.info(() -> "created event-log partition " + name));
        return created;
    }

    public Optional<String> ensureNext() {
        return ensureNext(FILL_RATIO);
    }

    /**
     * Moves the rows of the default partition into range partitions, one range per transaction, until none is
     * left, a lock is not granted (the rest waits for the next round) or the round's maximum is reached.
     */
    public List<Adopted> adoptDefault() {
        List<Adopted> adopted = new ArrayList<>();
        while (adopted.size() < MAX_ADOPTIONS_PER_ROUND && defaultHasRows()) {
            Optional<Optional<Adopted>> step =
                    ShortLocks.tryInTransaction(database, partitions, partitions::adoptDefault);
            if (step.isEmpty()) {
                LOG.fine("rows of event_default not moved: the event log's lock was not granted; next round");
                break;
            }
            if (step.get().isEmpty()) {
                break;
            }
            Adopted made = step.get().get();
            LOG.info(() -> "moved " + made.rows() + " rows of event_default into partition " + made.partition());
            adopted.add(made);
        }
        return adopted;
    }

    /* Asked in a transaction of its own, so that the adoption's first lock is the one on `event`. */
    private boolean defaultHasRows() {
        return database.inTransaction(partitions::defaultHasRows);
    }

    @Override
    public String name() {
        return "event-partitions";
    }

    @Override
    public int runOnce() {
        // the rows in the default first: a partition for their range cannot be created over them
        int adopted = adoptDefault().size();
        return adopted + (ensureNext().isPresent() ? 1 : 0);
    }
}
