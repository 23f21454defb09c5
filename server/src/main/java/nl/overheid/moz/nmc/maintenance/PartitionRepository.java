package nl.overheid.moz.nmc.maintenance;

import io.helidon.dbclient.DbTransaction;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The SQL of the event log's partitions: calls of the functions that know the catalogue
 * ({@code event_partition_ensure_next} (V4), {@code event_default_adopt}, {@code event_partition_expired} and
 * {@code event_partition_drop} (V7)), and the short lock timeout every change runs under ({@link ShortLocks}).
 */
public final class PartitionRepository {

    // transaction-local (true), so nothing outlives the transaction on a pooled connection
    private static final Statement LOCK_TIMEOUT_SET =
            Statement.named("lockTimeoutSet", "SELECT set_config('lock_timeout', :timeout, true) AS lock_timeout");

    private static final Statement EVENT_PARTITION_ENSURE_NEXT = Statement.named(
            "eventPartitionEnsureNext", "SELECT event_partition_ensure_next(CAST(:ratio AS numeric)) AS created");

    private static final Statement EVENT_DEFAULT_HAS_ROWS =
            Statement.named("eventDefaultHasRows", "SELECT EXISTS (SELECT 1 FROM event_default) AS has_rows");

    private static final Statement EVENT_DEFAULT_ADOPT =
            Statement.named("eventDefaultAdopt", "SELECT partitie, verplaatst FROM event_default_adopt()");

    private static final Statement EVENT_PARTITION_EXPIRED =
            Statement.named("eventPartitionExpired", "SELECT naam FROM event_partition_expired(:nu, :grens) AS naam");

    private static final Statement EVENT_PARTITION_DROP =
            Statement.named("eventPartitionDrop", "SELECT event_partition_drop(:naam, :nu) AS dropped");

    /** Makes the rest of the transaction wait at most {@code timeout} for a lock (transaction-local). */
    void limitLockWait(DbTransaction tx, Duration timeout) {
        LOCK_TIMEOUT_SET.get(tx).addParam("timeout", timeout.toMillis() + "ms").execute();
    }

    /** Creates the next partition when the current one is {@code fillRatio} full; its name if one was created. */
    Optional<String> ensureNext(DbTransaction tx, double fillRatio) {
        return EVENT_PARTITION_ENSURE_NEXT
                .get(tx)
                .addParam("ratio", Double.toString(fillRatio))
                .execute()
                .map(row -> DbTypes.text(row, "created"));
    }

    /** Whether {@code event_default} holds any row. */
    boolean defaultHasRows(DbTransaction tx) {
        return EVENT_DEFAULT_HAS_ROWS
                .get(tx)
                .execute()
                .map(row -> row.column("has_rows").get(Boolean.class))
                .orElse(false);
    }

    /** Moves one range of {@code event_default}'s rows into a partition of its own; empty when none was left. */
    Optional<EventPartitions.Adopted> adoptDefault(DbTransaction tx) {
        return EVENT_DEFAULT_ADOPT
                .get(tx)
                .execute()
                .map(row -> new EventPartitions.Adopted(
                        DbTypes.text(row, "partitie"), DbTypes.longValue(row, "verplaatst")));
    }

    /** The partitions whose events are all older than {@code cutoff} and that no position needs, lowest first. */
    List<String> expired(DbTransaction tx, Instant now, Instant cutoff) {
        return EVENT_PARTITION_EXPIRED
                .query(tx)
                .addParam("nu", now)
                .addParam("grens", cutoff)
                .execute()
                .map(row -> DbTypes.text(row, "naam"))
                .toList();
    }

    /** Drops the partition if it is still expired at {@code now}; whether it did. */
    boolean drop(DbTransaction tx, String partition, Instant now) {
        return EVENT_PARTITION_DROP
                .get(tx)
                .addParam("naam", partition)
                .addParam("nu", now)
                .execute()
                .map(row -> row.column("dropped").get(Boolean.class))
                .orElse(false);
    }
}
