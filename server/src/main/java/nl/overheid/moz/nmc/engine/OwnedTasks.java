package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
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

    /** Work on one task of a batch, whose subject and task rows the batch's transaction holds. */
    @FunctionalInterface
    public interface TaskWork<S> {
        void run(DbTransaction tx, Task task, S subject);
    }

    /** How each task of a batch runs: the worker gives it its own log context and span. */
    @FunctionalInterface
    public interface Each {
        void run(Task task, Runnable work);
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
     * Runs {@code work} for every task of {@code batch} in one transaction, each under its own two locks as in
     * {@link #underLocks}: the subjects are taken in {@link SubjectLock#order} (so two batches cannot deadlock;
     * a lone transaction holds one subject), and a task whose subject is gone or whose claim was taken over is
     * skipped. One commit for the batch instead of one per task; every task's statements are its own. Any
     * exception rolls the whole batch back and is thrown: the caller then runs each task on its own, so a task
     * that fails takes no other down with it.
     */
    public <S> void underLocksTogether(List<Task> batch, SubjectLock<S> subject, Each each, TaskWork<S> work) {
        List<Task> ordered = batch.stream()
                .sorted(Comparator.comparing(subject::order).thenComparingLong(Task::id))
                .toList();
        database.inTransactionDo(tx -> {
            for (Task task : ordered) {
                each.run(task, () -> {
                    var locked = subject.lock(tx, task);
                    if (locked.isPresent() && tasks.lockOwned(tx, task)) {
                        work.run(tx, task, locked.get());
                    }
                });
            }
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
