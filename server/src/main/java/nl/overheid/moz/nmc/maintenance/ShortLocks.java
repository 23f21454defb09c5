package nl.overheid.moz.nmc.maintenance;

import io.helidon.dbclient.DbTransaction;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Function;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.SqlStates;

/**
 * How maintenance changes the event log's partitions: each step in a transaction of its own that waits at most
 * {@link #LOCK_TIMEOUT} for a lock. A lock request on {@code event} queues the feed and the transition function
 * behind it while it waits, so a step that does not get its lock at once gives up and runs again next round.
 */
final class ShortLocks {

    static final Duration LOCK_TIMEOUT = Duration.ofMillis(500);

    private ShortLocks() {}

    /** Runs {@code work} in one transaction under the short lock timeout; empty when a lock was not granted. */
    static <T> Optional<T> tryInTransaction(
            Database database, PartitionRepository partitions, Function<DbTransaction, T> work) {
        try {
            return Optional.of(database.inTransaction(tx -> {
                partitions.limitLockWait(tx, LOCK_TIMEOUT);
                return work.apply(tx);
            }));
        } catch (RuntimeException e) {
            if (SqlStates.of(e).filter(SqlStates.LOCK_NOT_AVAILABLE::equals).isPresent()) {
                return Optional.empty();
            }
            throw e;
        }
    }
}
