package nl.overheid.moz.nmc.maintenance;

import java.time.Clock;
import java.time.Instant;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;

/**
 * Event-log retention (design §10): drops a range partition once its youngest event is older than the
 * delivery-proof retention and no acknowledgement or webhook position still needs it. An acknowledgement older
 * than its DV's max cursor age no longer counts, the highest partition and {@code event_default} are never
 * dropped. A cursor into a dropped partition gets its own 410 ({@code Refusal.CursorPartitionDropped}).
 *
 * <p>The rules are the SQL functions {@code event_partition_expired} and {@code event_partition_drop} (V7): the
 * candidates are found without a lock, and each drop is a transaction of its own under {@link ShortLocks} that
 * takes the event log exclusively and checks the positions again. The time is the NMC's clock, passed in, never
 * the database's {@code now()}.
 */
public final class EventRetention implements Duty {

    private static final Logger LOG = Logger.getLogger(EventRetention.class.getName());
    /** Partitions dropped per round at most, each in its own transaction. */
    static final int MAX_DROPS_PER_ROUND = 10;

    private final Database database;
    private final PartitionRepository partitions;
    private final Clock clock;
    private final Period retention;

    public EventRetention(Database database, PartitionRepository partitions, Clock clock, Period retention) {
        if (retention.isNegative() || retention.isZero()) {
            throw new IllegalArgumentException("retention.event-log must be a positive period");
        }
        this.database = database;
        this.partitions = partitions;
        this.clock = clock;
        this.retention = retention;
    }

    /** Drops the partitions whose time is over at {@code now}, lowest first; returns their names. */
    public List<String> dropExpired(Instant now) {
        Instant cutoff = now.atOffset(ZoneOffset.UTC).minus(retention).toInstant();
        List<String> expired = database.inTransaction(tx -> partitions.expired(tx, now, cutoff));
        List<String> dropped = new ArrayList<>();
        for (String partition : expired.subList(0, Math.min(expired.size(), MAX_DROPS_PER_ROUND))) {
            Optional<Boolean> step =
                    ShortLocks.tryInTransaction(database, partitions, tx -> partitions.drop(tx, partition, now));
            if (step.isEmpty()) {
                LOG.fine(() ->
                        "event-log partition " + partition + " not dropped: the lock was not granted; next round");
                break;
            }
            if (step.get()) {
                LOG.info(() -> "dropped event-log partition " + partition + " after the retention of " + retention);
                dropped.add(partition);
            }
        }
        return dropped;
    }

    @Override
    public String name() {
        return "event-retention";
    }

    @Override
    public int runOnce() {
        return dropExpired(clock.instant()).size();
    }
}
