package nl.overheid.moz.nmc.maintenance;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;
import nl.overheid.moz.nmc.engine.Duty;

/**
 * Keeps a range partition of the event log ahead of the transaction ids, so the feed keeps reading only
 * the partitions from the cursor on and a new partition never has to be carved out of the default one.
 * Should the upkeep have lagged anyway, the rows that fell into {@code event_default} are first moved into a
 * range partition of their own: until then no partition can be made over them, and retention never drops the
 * default. The work is the SQL functions {@code event_partition_ensure_next} (V4) and {@code
 * event_default_adopt} (V7), which know the catalogue; each step runs under {@link ShortLocks}.
 */
public final class EventPartitions implements Duty {

    private static final Logger LOG = Logger.getLogger(EventPartitions.class.getName());
    /** The next partition is created when the current one is this full (design §6: 80%). */
    public static final double FILL_RATIO = 0.8;
    /** Ranges adopted from the default partition per round at most, each in its own transaction. */
    static final int MAX_ADOPTIONS_PER_ROUND = 10;

    private static final Statement EVENT_PARTITION_ENSURE_NEXT = Statement.named("eventPartitionEnsureNext",
            "SELECT event_partition_ensure_next(CAST(:ratio AS numeric)) AS created");

    // Asked in a transaction of its own, so that the adoption's first lock is the one on `event`.
    private static final Statement EVENT_DEFAULT_HAS_ROWS = Statement.named("eventDefaultHasRows",
            "SELECT EXISTS (SELECT 1 FROM event_default) AS has_rows");

    private static final Statement EVENT_DEFAULT_ADOPT = Statement.named("eventDefaultAdopt",
            "SELECT partitie, verplaatst FROM event_default_adopt()");

    private final Database database;

    public EventPartitions(Database database) {
        this.database = database;
    }

    /** A range partition made for rows of the default partition, and how many rows moved into it. */
    public record Adopted(String partition, long rows) {
    }

    /** Creates the next partition when it is due; returns its name if one was created. */
    public Optional<String> ensureNext(double fillRatio) {
        Optional<String> created = ShortLocks.tryInTransaction(database, tx -> EVENT_PARTITION_ENSURE_NEXT.get(tx)
                        .addParam("ratio", Double.toString(fillRatio)).execute()
                        .map(row -> DbTypes.text(row, "created")))
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
            Optional<Optional<Adopted>> step = ShortLocks.tryInTransaction(database, tx -> EVENT_DEFAULT_ADOPT.get(tx)
                    .execute().map(row -> new Adopted(DbTypes.text(row, "partitie"),
                            DbTypes.longValue(row, "verplaatst"))));
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

    private boolean defaultHasRows() {
        return database.inTransaction(tx -> EVENT_DEFAULT_HAS_ROWS.get(tx).execute()
                .map(row -> row.column("has_rows").get(Boolean.class)).orElse(false));
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
