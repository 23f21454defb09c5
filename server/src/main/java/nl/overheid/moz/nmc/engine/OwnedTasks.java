package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.util.Optional;
import nl.overheid.moz.nmc.db.Database;

/**
 * The second transaction of a claimed task: lock its subject, then the task row with this claim's epoch
 * (the one lock order), and only then write. A claim whose lease expired and was taken over writes nothing.
 */
public final class OwnedTasks {

    private final Database database;
    private final TaskRepository tasks;

    public OwnedTasks(Database database, TaskRepository tasks) {
        this.database = database;
        this.tasks = tasks;
    }

    /** Work on a task whose subject and task rows this transaction holds. */
    @FunctionalInterface
    public interface Work<S> {
        void run(DbTransaction tx, S subject);
    }

    /** Like {@link Work}, with a result ({@code null}: none). */
    @FunctionalInterface
    public interface Computation<S, T> {
        T run(DbTransaction tx, S subject);
    }

    /**
     * Runs {@code work} in one transaction under both locks. Concurrency: blocks while another transaction
     * holds the subject; does nothing and reports {@code false} when the subject is gone or another claim
     * raised the task's epoch after this claim's lease expired.
     */
    public <S> boolean underLocks(Task task, SubjectLock<S> subject, Work<S> work) {
        return database.inTransaction(tx -> {
            var locked = subject.lock(tx, task);
            if (locked.isEmpty() || !tasks.lockOwned(tx, task)) {
                return false;
            }
            work.run(tx, locked.get());
            return true;
        });
    }

    /**
     * Extends this claim's lease to {@code until} before an external call (ADR 0024: "de lease wordt per taak
     * verlengd vóór elke externe aanroep"), in a transaction of its own that locks only the task row, like a
     * release: it waits for no subject, so it cannot break the lock order. {@code false}: another claim took the
     * task after this claim's lease expired; make no call and write nothing.
     */
    public boolean extendLease(Task task, Instant until) {
        return database.inTransaction(tx -> tasks.extendLease(tx, task, until));
    }

    /** {@link #underLocks} with a result; empty when the work did not run or returned {@code null}. */
    public <S, T> Optional<T> computeUnderLocks(Task task, SubjectLock<S> subject, Computation<S, T> work) {
        return database.inTransaction(tx -> {
            var locked = subject.lock(tx, task);
            if (locked.isEmpty() || !tasks.lockOwned(tx, task)) {
                return Optional.<T>empty();
            }
            return Optional.ofNullable(work.run(tx, locked.get()));
        });
    }
}
