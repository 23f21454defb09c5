package nl.overheid.moz.nmc.engine;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.lifecycle.Transitions;

/**
 * The second transaction of every task that changes a notification: lock the notification row first, then
 * the task row with this claim's epoch (the one lock order of design §6), and only then write.
 */
public final class OwnedTask {

    private OwnedTask() {
    }

    /** Work on a notification whose row lock and task this transaction holds. */
    @FunctionalInterface
    public interface Work {
        void run(Connection connection, Transitions.Locked notificatie) throws SQLException;
    }

    /**
     * Runs {@code work} in one transaction under both locks. Concurrency: blocks while another transaction
     * holds the notification; does nothing (and reports {@code false}) when the notification is gone or
     * another claim took the task over after this claim's lease expired.
     */
    public static boolean underLocks(Database database, Transitions transitions, TaskRepository tasks, Task task,
                                     Work work) {
        return database.inTransaction(connection -> {
            Optional<Transitions.Locked> locked = transitions.lock(connection, task.notificatie());
            if (locked.isEmpty() || !tasks.taskLockOwned(connection, task)) {
                return false;
            }
            work.run(connection, locked.get());
            return true;
        });
    }
}
