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
 * callback window, so a failure receipt completed within the period cannot cross it.
 */
public final class Finaliser implements TaskHandler {

    private final Database database;
    private final TaskRepository tasks;
    private final Transitions transitions;

    public Finaliser(Database database, TaskRepository tasks, Transitions transitions) {
        this.database = database;
        this.tasks = tasks;
        this.transitions = transitions;
    }

    @Override
    public TaskKind kind() {
        return TaskKind.VASTSTELLEN;
    }

    @Override
    public void execute(Task task) {
        OwnedTask.underLocks(database, transitions, tasks, task, (connection, n) -> {
            if (n.status() == NotificatieStatus.BEZORGD) {
                transitions.apply(connection, n, NotificatieStatus.DEFINITIEF_BEZORGD, null);
            }
            tasks.taskComplete(connection, task);
        });
    }
}
