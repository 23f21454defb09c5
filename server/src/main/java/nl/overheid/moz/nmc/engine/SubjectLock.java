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

    /**
     * The order in which a transaction that acts on several tasks takes their subjects
     * ({@link OwnedTasks#underLocksTogether}): every such transaction takes them in this order, so two of them
     * cannot deadlock. By the task's notification as text (the database's order of uuids); a kind whose subject
     * is another row says so here.
     */
    default String order(Task task) {
        return task.notificatie() == null ? "" : task.notificatie().toString();
    }

    /** For tasks that act on no other row (per-DV and system tasks): the task row is the only lock. */
    SubjectLock<Task> NONE = new SubjectLock<>() {
        @Override
        public Optional<Task> lock(DbTransaction tx, Task task) {
            return Optional.of(task);
        }

        @Override
        public String order(Task task) {
            return String.format("%020d", task.id());
        }
    };
}
