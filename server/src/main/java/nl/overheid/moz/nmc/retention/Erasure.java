package nl.overheid.moz.nmc.retention;

import io.helidon.dbclient.DbTransaction;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.SubjectLock;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskHandler;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.planning.HandlerSupport;
import nl.overheid.moz.nmc.planning.NotificatieTasks;

/**
 * The {@code wissen} task (design §10): a fixed period after a notification's terminal status, its wrapped
 * data key is deleted — from then on nothing can decrypt its address, number or personalisation — and with it
 * the LDV pseudonym of its data subject. The ciphertexts stay: without the key they are noise. The retention
 * duty plans the task once the period has come ({@link NotificatieRetention}). A notification that is no longer
 * terminal (a late receipt re-opened it) is not erased: the period runs again from its next terminal status.
 */
public final class Erasure implements TaskHandler {

    private final RetentionRepository retention;
    private final OwnedTasks owned;
    private final TaskRepository tasks;
    private final NotificatieTasks notificatieTasks;

    public Erasure(HandlerSupport support, RetentionRepository retention) {
        this.retention = retention;
        this.owned = support.owned();
        this.tasks = support.tasks();
        this.notificatieTasks = support.notificatieTasks();
    }

    @Override
    public TaskKind kind() {
        return TaskKind.WISSEN;
    }

    @Override
    public SubjectLock<Transitions.Locked> subjectLock() {
        return notificatieTasks.lock();
    }

    @Override
    public void execute(Task task) {
        owned.underLocks(task, subjectLock(), (tx, n) -> erase(tx, task, n));
    }

    private void erase(DbTransaction tx, Task task, Transitions.Locked n) {
        if (n.status().terminal()) {
            retention.erase(tx, n.id());
        }
        tasks.complete(tx, task);
    }
}
