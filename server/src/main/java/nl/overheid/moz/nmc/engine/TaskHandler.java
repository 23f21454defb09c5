package nl.overheid.moz.nmc.engine;

import java.sql.Connection;

/**
 * The work of one task kind. The engine claims tasks in one transaction (calling {@link #onClaim} for each
 * inside it), commits, and then calls {@link #execute} for each outside any transaction. {@code execute}
 * opens its own transactions and completes, postpones or fails the task itself, always with the claim epoch.
 */
public interface TaskHandler {

    TaskKind kind();

    /**
     * Runs inside the claim transaction, with the task and its notification row locked. For the send task
     * this is where the claim's transition happens (design §6: the claim goes through the transition
     * function). Return {@code false} when the task was completed here and needs no execution.
     */
    default boolean onClaim(Connection connection, Task task) {
        return true;
    }

    /** Executes a claimed task. An exception counts as an NMC-internal failure of the task. */
    void execute(Task task) throws Exception;

    /**
     * Called in a transaction, after locking the notification, when the task's attempt counter reached its
     * maximum. The default parks the task for an operator ({@code mislukt}).
     */
    default void onExhausted(Connection connection, Task task, TaskRepository tasks, String fout) {
        tasks.taskMarkFailed(connection, task, fout);
    }

    /** NMC-internal failures before {@link #onExhausted}; called in the failure's transaction. */
    default int maxFailures(Connection connection, Task task) {
        return DEFAULT_MAX_FAILURES;
    }

    /** NMC-internal failures a task may have unless its kind says otherwise. */
    int DEFAULT_MAX_FAILURES = 5;

    /** Which share of the NotifyNL send budget claims of this kind take tokens from. */
    default Budget budget() {
        return Budget.NONE;
    }

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
