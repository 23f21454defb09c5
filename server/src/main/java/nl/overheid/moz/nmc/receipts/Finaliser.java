package nl.overheid.moz.nmc.receipts;

import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.OwnedTask;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskHandler;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Transitions;

/**
 * The {@code vaststellen} task: after the MEBV period a delivered notification becomes definitief-bezorgd.
 * It never asks NotifyNL (NotifyNL's retention need not cover the period). Its due already includes the
 * callback window, so a failure receipt completed within the period cannot cross it; one that is stored but
 * not yet processed makes it wait.
 */
public final class Finaliser implements TaskHandler {

    /** How long finalising waits for a stored receipt that is still being processed. */
    static final java.time.Duration WAIT_FOR_RECEIPTS = java.time.Duration.ofSeconds(30);

    private final Database database;
    private final TaskRepository tasks;
    private final Transitions transitions;
    private final OntvangstRepository ontvangsten;
    private final java.time.Clock clock;

    public Finaliser(Database database, TaskRepository tasks, Transitions transitions, OntvangstRepository ontvangsten,
                     java.time.Clock clock) {
        this.database = database;
        this.tasks = tasks;
        this.transitions = transitions;
        this.ontvangsten = ontvangsten;
        this.clock = clock;
    }

    @Override
    public TaskKind kind() {
        return TaskKind.VASTSTELLEN;
    }

    @Override
    public void execute(Task task) {
        OwnedTask.underLocks(database, transitions, tasks, task, (connection, n) -> {
            if (ontvangsten.ontvangstPending(connection, n.id())) {
                // A failure receipt stored within the period must not be overtaken by finalising.
                tasks.taskPostpone(connection, task, clock.instant().plus(WAIT_FOR_RECEIPTS), "ontvangst-open");
                return;
            }
            if (n.status() == NotificatieStatus.BEZORGD) {
                transitions.apply(connection, n, NotificatieStatus.DEFINITIEF_BEZORGD, null);
            }
            tasks.taskComplete(connection, task);
        });
    }
}
