package nl.overheid.moz.nmc.receipts;

import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Duration;
import nl.overheid.moz.nmc.engine.LockedWork;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.SubjectLock;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.planning.HandlerSupport;
import nl.overheid.moz.nmc.planning.NotificatieTasks;

/**
 * The {@code vaststellen} task (the finaliser): after the MEBV period a delivered notification becomes
 * definitief-bezorgd. It never asks NotifyNL (NotifyNL's retention need not cover the period). Its due
 * already includes the callback window, so a failure receipt completed within the period cannot cross it;
 * one that is stored but not yet processed makes it wait.
 */
public final class Finaliser implements LockedWork<Transitions.Locked> {

    /** How long finalising waits for a stored receipt that is still being processed. */
    static final Duration WAIT_FOR_RECEIPTS = Duration.ofSeconds(30);

    private final OwnedTasks owned;
    private final TaskRepository tasks;
    private final NotificatieTasks notificatieTasks;
    private final Transitions transitions;
    private final ReceiptRepository receiptRepository;
    private final Clock clock;

    public Finaliser(HandlerSupport support, ReceiptRepository receiptRepository) {
        this.owned = support.owned();
        this.tasks = support.tasks();
        this.notificatieTasks = support.notificatieTasks();
        this.transitions = support.transitions();
        this.receiptRepository = receiptRepository;
        this.clock = support.clock();
    }

    @Override
    public TaskKind kind() {
        return TaskKind.VASTSTELLEN;
    }

    @Override
    public SubjectLock<Transitions.Locked> subjectLock() {
        return notificatieTasks.lock();
    }

    @Override
    public OwnedTasks owned() {
        return owned;
    }

    /** Finalising is the database's work alone: a claimed batch is finalised in one transaction. */
    @Override
    public void work(DbTransaction tx, Task task, Transitions.Locked n) {
        if (receiptRepository.pending(tx, n.id())) {
            // A failure receipt stored within the period must not be overtaken by finalising.
            tasks.postpone(tx, task, clock.instant().plus(WAIT_FOR_RECEIPTS), "ontvangst-open");
            return;
        }
        if (n.status() == NotificatieStatus.BEZORGD) {
            notificatieTasks.completeAll(tx, transitions.apply(tx, n, NotificatieStatus.DEFINITIEF_BEZORGD, null));
        } else {
            tasks.complete(tx, task);
        }
    }
}
