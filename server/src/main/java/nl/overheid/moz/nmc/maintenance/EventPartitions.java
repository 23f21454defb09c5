package nl.overheid.moz.nmc.maintenance;

import java.util.Optional;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;
import nl.overheid.moz.nmc.engine.Duty;

/**
 * Keeps a range partition of the event log ahead of the transaction ids, so the feed keeps reading only
 * the partitions from the cursor on and a new partition never has to be carved out of the default one.
 * The work is the SQL function {@code event_partition_ensure_next} (V4), which knows the catalogue.
 */
public final class EventPartitions implements Duty {

    private static final Logger LOG = Logger.getLogger(EventPartitions.class.getName());
    /** The next partition is created when the current one is this full (design §6: 80%). */
    public static final double FILL_RATIO = 0.8;

    private static final Statement EVENT_PARTITION_ENSURE_NEXT = Statement.named("eventPartitionEnsureNext",
            "SELECT event_partition_ensure_next(CAST(:ratio AS numeric)) AS created");

    private final Database database;

    public EventPartitions(Database database) {
        this.database = database;
    }

    /** Creates the next partition when it is due; returns its name if one was created. */
    public Optional<String> ensureNext(double fillRatio) {
        Optional<String> created = database.inTransaction(tx -> EVENT_PARTITION_ENSURE_NEXT.get(tx)
                .addParam("ratio", Double.toString(fillRatio)).execute()
                .map(row -> DbTypes.text(row, "created")));
        created.ifPresent(name -> LOG.info(() -> "created event-log partition " + name));
        return created;
    }

    public Optional<String> ensureNext() {
        return ensureNext(FILL_RATIO);
    }

    @Override
    public String name() {
        return "event-partitions";
    }

    @Override
    public int runOnce() {
        return ensureNext().isPresent() ? 1 : 0;
    }
}
