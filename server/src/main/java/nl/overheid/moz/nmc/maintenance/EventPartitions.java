package nl.overheid.moz.nmc.maintenance;

import java.util.Optional;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.Sql;

/**
 * Keeps a range partition of the event log ahead of the transaction ids, so the feed keeps reading only
 * the partitions from the cursor on and a new partition never has to be carved out of the default one.
 * The work is the SQL function {@code event_partition_ensure_next} (V4), which knows the catalogue.
 */
public final class EventPartitions {

    private static final Logger LOG = Logger.getLogger(EventPartitions.class.getName());
    /** The next partition is created when the current one is this full (design §6: 80%). */
    public static final double FILL_RATIO = 0.8;

    private static final String ENSURE_NEXT = "SELECT event_partition_ensure_next(:ratio::numeric) AS created";

    private final Database database;

    public EventPartitions(Database database) {
        this.database = database;
    }

    /** Creates the next partition when it is due; returns its name if one was created. */
    public Optional<String> ensureNext(double fillRatio) {
        Optional<String> created = database.inTransaction(connection -> Sql.on(connection, ENSURE_NEXT)
                .bind("ratio", Double.toString(fillRatio)).one(row -> Optional.ofNullable(row.string("created"))));
        created.ifPresent(name -> LOG.info(() -> "created event-log partition " + name));
        return created;
    }

    public Optional<String> ensureNext() {
        return ensureNext(FILL_RATIO);
    }
}
