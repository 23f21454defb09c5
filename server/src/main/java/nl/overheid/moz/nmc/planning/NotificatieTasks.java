package nl.overheid.moz.nmc.planning;

import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.engine.SubjectLock;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Poging;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.register.Berichttype;
import nl.overheid.moz.nmc.register.Register;

/**
 * The tasks of a notification, in one place: the lock that every transaction on such a task takes first
 * (the notification row, through the transition function), and the verbs that plan and complete them.
 * Callers hold the notification's lock when they plan or complete (acceptance holds it implicitly: the row
 * is its own insert).
 *
 * <p>The tasks that call NotifyNL (send, reconcile) spend the send budget of a NotifyNL service: their budget key
 * ({@code taak.budget}, opaque to the engine) is the name of the service they call. A send's is its berichttype's
 * {@code notify_service}; a reconciliation's is the service that sent the attempt.
 */
public final class NotificatieTasks {

    private final TaskRepository tasks;
    private final Register register;
    private final SubjectLock<Transitions.Locked> lock;

    public NotificatieTasks(TaskRepository tasks, Transitions transitions, Register register) {
        this.tasks = tasks;
        this.register = register;
        this.lock = (tx, task) -> transitions.lock(tx, task.notificatie());
    }

    /** The subject lock of every task kind that acts on a notification. */
    public SubjectLock<Transitions.Locked> lock() {
        return lock;
    }

    /** A send task (first send or resend); its start decides which. Spends the berichttype's service's budget. */
    public void planSend(DbTransaction tx, Transitions.Locked n, Instant due) {
        planSend(tx, n, notifyService(tx, n), due);
    }

    /** {@link #planSend}, for a caller that read the berichttype already: {@code notifyService} is its service. */
    public void planSend(DbTransaction tx, Transitions.Locked n, String notifyService, Instant due) {
        tasks.insert(tx, sendTask(n, notifyService, due));
    }

    /**
     * The first send tasks of newly accepted notifications, in one statement; {@code notifyServices} maps each
     * one's berichttype to its NotifyNL service (whose budget the send spends).
     */
    public void planFirstSends(
            DbTransaction tx, List<Transitions.Locked> accepted, Map<String, String> notifyServices, Instant due) {
        tasks.insertAll(
                tx,
                accepted.stream()
                        .map(n -> sendTask(n, notifyServices.get(n.berichttype()), due))
                        .toList());
    }

    private static TaskRepository.NewTask sendTask(Transitions.Locked n, String notifyService, Instant due) {
        return TaskRepository.NewTask.forNotificatie(TaskKind.VERZENDEN, n.dvId(), n.id(), due, n.traceId())
                .withBudget(notifyService);
    }

    /**
     * The receipt task of a stored receipt: one per receipt, outside the one-per-kind rule, so a receipt stored
     * while another of its attempt is being applied is never left without one (it waits for no control duty).
     */
    public void planReceipt(
            DbTransaction tx,
            UUID dvId,
            UUID notificatie,
            UUID poging,
            long receipt,
            Instant completedAt,
            String traceId,
            Instant due) {
        tasks.insert(
                tx,
                new TaskRepository.NewTask(
                        TaskKind.VERWERKEN, dvId, notificatie, poging, receipt, completedAt, due, traceId, "{}"));
    }

    /**
     * The reconcile task of an attempt NotifyNL accepted; whoever records the send plans it. It asks, and spends
     * the budget of, the service that sent the attempt (kept on it since V30; before, the berichttype's service).
     */
    public void planReconciliation(DbTransaction tx, Transitions.Locked n, Poging poging, Instant due) {
        planReconciliation(
                tx,
                n,
                poging.id(),
                poging.notifyService() != null ? poging.notifyService() : notifyService(tx, n),
                due);
    }

    /** {@link #planReconciliation} of an attempt {@code notifyService} accepted (the send commit knows it). */
    public void planReconciliation(
            DbTransaction tx, Transitions.Locked n, UUID poging, String notifyService, Instant due) {
        tasks.insert(
                tx,
                TaskRepository.NewTask.forNotificatie(TaskKind.RECONCILIEREN, n.dvId(), n.id(), due, n.traceId())
                        .withPoging(poging)
                        .withBudget(notifyService));
    }

    /** The NotifyNL service of the notification's berichttype (a berichttype is never deleted while in use). */
    private String notifyService(DbTransaction tx, Transitions.Locked n) {
        return register.berichttype(tx, n.berichttype())
                .map(Berichttype::notifyService)
                .orElseThrow(() -> new IllegalStateException("unknown berichttype of notification " + n.id()));
    }

    /**
     * Ends the reconciliation of this attempt (its outcome is known). The reconciliation of another attempt
     * goes on: a delivered on attempt 1 while attempt 2 runs does not make attempt 2's outcome irrelevant.
     */
    public void completeReconciliation(DbTransaction tx, Transitions.Locked n, UUID poging) {
        tasks.completeForPoging(tx, n.id(), TaskKind.RECONCILIEREN, poging);
    }

    /** The finalise task of a delivered notification. */
    public void planFinalise(DbTransaction tx, Transitions.Locked n, Instant due) {
        tasks.insert(
                tx, TaskRepository.NewTask.forNotificatie(TaskKind.VASTSTELLEN, n.dvId(), n.id(), due, n.traceId()));
    }

    /** Completes the notification's open task of one kind, whoever holds it. */
    public void complete(DbTransaction tx, Transitions.Locked n, TaskKind kind) {
        tasks.completeForNotificatie(tx, n.id(), kind);
    }

    /**
     * Completes every planned task of a notification that became terminal. Two kinds stay: receipt tasks (a
     * stored receipt is still recorded on its attempt, and may still correct bezorgstatus-onbekend) and the
     * report of an invalid address, which follows a terminal status. Its erasure is not planned here: its timer
     * is the terminal time the transition wrote ({@code terminaal_sinds}), and the retention duty plans the
     * {@code wissen} task once that time plus the erasure period has come ({@code retention/NotificatieRetention}),
     * so that a task row exists for the moment of the work, not for the month before it.
     */
    public void completeAll(DbTransaction tx, Transitions.Locked n) {
        tasks.completeAllForNotificatieExcept(tx, n.id(), KEPT_WHEN_TERMINAL);
    }

    /**
     * After an operator forced a status that is not terminal: completes the notification's lifecycle tasks that status
     * does not use, and every parked one (receipt tasks and reports stay, as for a terminal status), so the control
     * duty, which plans only for a notification without an open or parked task, plans what the status needs. The open
     * tasks it uses go on: a send (waiting out an uncertain POST keeps its wait; one that finds the notification
     * bezorgd completes itself) and, for verzonden, a reconciliation.
     */
    public void completeForForcedStatus(DbTransaction tx, Transitions.Locked n, NotificatieStatus status) {
        java.util.Set<TaskKind> used = switch (status) {
            case VERZONDEN -> java.util.Set.of(TaskKind.VERZENDEN, TaskKind.RECONCILIEREN);
            case BEZORGD -> java.util.Set.of(TaskKind.VERZENDEN, TaskKind.VASTSTELLEN);
            default -> java.util.Set.of(TaskKind.VERZENDEN);
        };
        tasks.completeForNotificatieExcept(tx, n.id(), KEPT_WHEN_TERMINAL, used);
    }

    /**
     * The report of an invalid address to the Profielservice (centralised regime, after a permanent failure of
     * attempt {@code poging}, whose address it names). One per attempt (each went to one address): the caller
     * marks the attempt first ({@code PogingRepository.markInvalidReported}), and a unique index backs it.
     */
    public void planInvalidReport(DbTransaction tx, Transitions.Locked n, UUID poging, Instant due) {
        tasks.insert(
                tx,
                new TaskRepository.NewTask(
                        TaskKind.ONGELDIG_MELDEN, n.dvId(), n.id(), poging, null, null, due, n.traceId(), "{}"));
    }

    private static final java.util.Set<TaskKind> KEPT_WHEN_TERMINAL =
            java.util.EnumSet.of(TaskKind.VERWERKEN, TaskKind.ONGELDIG_MELDEN);
}
