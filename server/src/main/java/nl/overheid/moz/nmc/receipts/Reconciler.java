package nl.overheid.moz.nmc.receipts;

import java.time.Clock;
import java.time.Instant;
import java.util.Optional;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.SubjectLock;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskHandler;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.engine.WorkSignals;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Poging;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.lifecycle.PogingStatus;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.planning.NotificationTasks;
import nl.overheid.moz.nmc.sending.NotifyNl;

/**
 * The {@code reconcilieren} task: asks NotifyNL about an attempt that has no receipt yet, so a lost callback
 * (or NotifyNL's own technical failure, which sends none) cannot leave a notification waiting forever. An
 * outcome found here goes through the {@link ReceiptStore} like a callback; a 404, or NotifyNL's retention
 * passing without an outcome, ends in bezorgstatus-onbekend. Claims take reconciliation's share of the
 * send budget.
 */
public final class Reconciler implements TaskHandler {

    private final Database database;
    private final OwnedTasks owned;
    private final TaskRepository tasks;
    private final NotificationTasks notificationTasks;
    private final PogingRepository pogingen;
    private final Transitions transitions;
    private final ReceiptStore receipts;
    private final NotifyNl notifyNl;
    private final ReconcileSchedule schedule;
    private final Clock clock;
    private final WorkSignals signals;

    public Reconciler(Database database, OwnedTasks owned, TaskRepository tasks, NotificationTasks notificationTasks,
                      PogingRepository pogingen, Transitions transitions, ReceiptStore receipts, NotifyNl notifyNl,
                      ReconcileSchedule schedule, Clock clock, WorkSignals signals) {
        this.database = database;
        this.owned = owned;
        this.tasks = tasks;
        this.notificationTasks = notificationTasks;
        this.pogingen = pogingen;
        this.transitions = transitions;
        this.receipts = receipts;
        this.notifyNl = notifyNl;
        this.schedule = schedule;
        this.clock = clock;
        this.signals = signals;
    }

    @Override
    public TaskKind kind() {
        return TaskKind.RECONCILIEREN;
    }

    @Override
    public Budget budget() {
        return Budget.RECONCILING;
    }

    @Override
    public SubjectLock<Transitions.Locked> subjectLock() {
        return notificationTasks.lock();
    }

    @Override
    public void execute(Task task) {
        Optional<Poging> poging = database.inTransaction(tx -> pogingen.pogingById(tx, task.poging()));
        if (poging.isEmpty() || !poging.get().status().running() || poging.get().verzondenOp() == null) {
            owned.underLocks(task, subjectLock(), (tx, n) -> tasks.taskComplete(tx, task));
            return;
        }
        Poging attempt = poging.get();
        Instant now = clock.instant();
        switch (notifyNl.findByReference(attempt.id())) {
            case NotifyNl.Lookup.Found found when ReceiptStatus.of(found.status()) != ReceiptStatus.UNKNOWN -> {
                ReceiptStore.Outcome outcome = receipts.store(new OntvangstRepository.Incoming(attempt.id(),
                        found.notifyId(), found.status(), null, found.completedAt().orElse(now), null, "email",
                        null, null));
                if (outcome == ReceiptStore.Outcome.STORED) {
                    signals.nudge(TaskKind.VERWERKEN);
                }
                // The receipt task completes this task when it applies the outcome; until then ask again later.
                reschedule(task, attempt, now);
            }
            case NotifyNl.Lookup.Found stillSending -> reschedule(task, attempt, now);
            case NotifyNl.Lookup.NotFound notFound -> unknown(task);
            case NotifyNl.Lookup.Unavailable unavailable -> owned.underLocks(task, subjectLock(), (tx, n) ->
                    tasks.taskPostpone(tx, task, now.plus(schedule.steps().getFirst()), unavailable.reason()));
        }
    }

    private void reschedule(Task task, Poging attempt, Instant now) {
        Optional<Instant> next = schedule.next(attempt.verzondenOp(), now);
        if (next.isEmpty()) {
            unknown(task);
            return;
        }
        owned.underLocks(task, subjectLock(), (tx, n) -> tasks.taskPostpone(tx, task, next.get(), null));
    }

    /** No outcome can be had any more: the attempt is onbekend, the notification bezorgstatus-onbekend. */
    private void unknown(Task task) {
        owned.underLocks(task, subjectLock(), (tx, n) -> {
            Poging attempt = pogingen.pogingLock(tx, task.poging()).orElseThrow();
            if (attempt.status() == PogingStatus.VERZONDEN) {
                pogingen.pogingSetStatus(tx, attempt.id(), PogingStatus.ONBEKEND);
            }
            if (n.status() == NotificatieStatus.VERZONDEN && attempt.status().running()) {
                Transitions.Locked onbekend = transitions.apply(tx, n, NotificatieStatus.BEZORGSTATUS_ONBEKEND, null);
                notificationTasks.completeAll(tx, onbekend);
            } else {
                tasks.taskComplete(tx, task);
            }
        });
    }
}
