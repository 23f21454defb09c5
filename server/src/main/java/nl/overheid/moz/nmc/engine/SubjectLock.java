package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbTransaction;
import java.util.Optional;

/**
 * The hook through which a task kind says what row its tasks act on. Every transaction the engine (or a
 * handler, through {@link OwnedTasks}) writes a claimed task in takes this lock first and the task row
 * second: one lock order everywhere, so claims, receipts and cancels can never deadlock.
 *
 * @param <S> what the lock yields to the work (e.g. the locked notification)
 */
@FunctionalInterface
public interface SubjectLock<S> {

    /**
     * Locks the row the task acts on, blocking while another transaction holds it. Empty when that row no
     * longer exists: the task's work is moot and nothing may be written.
     */
    Optional<S> lock(DbTransaction tx, Task task);

    /** For tasks that act on no other row (per-DV and system tasks): the task row is the only lock. */
    SubjectLock<Task> NONE = (tx, task) -> Optional.of(task);
}
