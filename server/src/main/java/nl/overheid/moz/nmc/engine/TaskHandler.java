package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbTransaction;
import java.util.List;

/**
 * The work of one task kind. The engine claims tasks in one short transaction that locks only task rows
 * and commits before execution; then it calls {@link #execute} for each, outside any transaction.
 * {@code execute} opens its own transactions (through {@link OwnedTasks}) and completes, postpones or fails
 * the task itself, always with the claim epoch.
 */
public interface TaskHandler {

    TaskKind kind();

    /** Which share of the NotifyNL send budget claims of this kind take tokens from. */
    default Budget budget() {
        return Budget.NONE;
    }

    /**
     * What a task of this kind acts on ({@link SubjectLock#NONE}: nothing but the task). The engine takes this
     * lock before the task row whenever it writes a claimed task itself (counting a failure, parking an
     * exhausted task). No default: a kind that acts on a notification and forgot to say so would invert the
     * lock order silently.
     */
    SubjectLock<?> subjectLock();

    /** Executes a claimed task. An exception counts as an NMC-internal failure of the task. */
    void execute(Task task) throws Exception;

    /**
     * Whether a claimed batch of this kind is executed together ({@link #executeTogether}) rather than one task at
     * a time. For kinds whose work is in the database alone (no party is called), so one transaction can hold
     * the batch without waiting on anyone.
     */
    default boolean together() {
        return false;
    }

    /**
     * Executes a claimed batch in one transaction ({@link OwnedTasks#underLocksTogether}), each task's work the
     * same as {@link #execute}'s, each run through {@code each}. An exception rolls the whole batch back; the
     * worker then executes each task on its own, so every task ends as it would have alone.
     */
    default void executeTogether(List<Task> batch, OwnedTasks.Each each) throws Exception {
        throw new UnsupportedOperationException(kind() + " does not execute tasks together");
    }

    /**
     * Called in a transaction, after the subject lock, when the task's attempt counter reached its maximum.
     * The default parks the task for an operator ({@code mislukt}).
     */
    default void onExhausted(DbTransaction tx, Task task, TaskRepository tasks, String error) {
        tasks.markFailed(tx, task, error);
    }

    /** NMC-internal failures before {@link #onExhausted}; called in the failure's transaction. */
    default int maxFailures(DbTransaction tx, Task task) {
        return DEFAULT_MAX_FAILURES;
    }

    /** NMC-internal failures a task may have unless its kind says otherwise. */
    int DEFAULT_MAX_FAILURES = 5;

    /** The budget a kind of task spends: NotifyNL calls are limited per service and minute. */
    enum Budget {
        /** Makes no NotifyNL calls. */
        NONE,
        /** First sends and resends. */
        SENDING,
        /** Status queries; a fixed share of every window. */
        RECONCILING
    }
}
