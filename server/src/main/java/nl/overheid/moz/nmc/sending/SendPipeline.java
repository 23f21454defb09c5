package nl.overheid.moz.nmc.sending;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;
import javax.crypto.SecretKey;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.OwnedTask;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskHandler;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieReads;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Poging;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.lifecycle.PogingStatus;
import nl.overheid.moz.nmc.lifecycle.Reden;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.privacy.Envelope;
import nl.overheid.moz.nmc.register.Berichttype;
import nl.overheid.moz.nmc.register.Register;

/**
 * The send pipeline (step 2): the {@code verzenden} task. It writes only {@code taak} and {@code poging}
 * (the budget is taken by the claim) and changes status only through {@link Transitions}.
 *
 * <ol>
 *   <li>Claim transaction ({@link #onClaim}): under the notification's lock, aangenomen → in-verzending
 *       with attempt 1, or verzonden → verzonden with attempt 2 for a resend; a notification that is already
 *       bezorgd or terminal completes the task without sending (a late delivered cancels a resend);
 *       geldig_tot passed → verlopen. A re-claim after an expired lease reuses the planned attempt.</li>
 *   <li>Execution: a re-claim first searches NotifyNL by reference; then decrypt, extend the lease, call.</li>
 *   <li>Commit transaction: notification lock, then the task lock with the claim epoch (a stale claim
 *       writes nothing), then the outcome.</li>
 * </ol>
 */
public final class SendPipeline implements TaskHandler {

    private static final Logger LOG = Logger.getLogger(SendPipeline.class.getName());

    private final Database database;
    private final TaskRepository tasks;
    private final PogingRepository pogingen;
    private final NotificatieReads notificaties;
    private final Transitions transitions;
    private final Register register;
    private final Envelope envelope;
    private final NotifyNl notifyNl;
    private final Clock clock;
    private final Duration lease;
    private final Backoff backoff;
    private final Duration firstReconciliation;
    private final ObjectMapper mapper = new ObjectMapper();

    /**
     * Delay before the n-th retry of a postponed call.
     */
    @FunctionalInterface
    public interface Backoff {
        Duration delay(int attempt);
    }

    public SendPipeline(Database database, TaskRepository tasks, PogingRepository pogingen,
                        NotificatieReads notificaties, Transitions transitions, Register register, Envelope envelope,
                        NotifyNl notifyNl, Clock clock, Duration lease, Backoff backoff, Duration firstReconciliation) {
        this.database = database;
        this.tasks = tasks;
        this.pogingen = pogingen;
        this.notificaties = notificaties;
        this.transitions = transitions;
        this.register = register;
        this.envelope = envelope;
        this.notifyNl = notifyNl;
        this.clock = clock;
        this.lease = lease;
        this.backoff = backoff;
        this.firstReconciliation = firstReconciliation;
    }

    @Override
    public TaskKind kind() {
        return TaskKind.VERZENDEN;
    }

    @Override
    public Budget budget() {
        return Budget.SENDING;
    }

    @Override
    public boolean onClaim(Connection connection, Task task) {
        Optional<Transitions.Locked> found = transitions.lock(connection, task.notificatie());
        if (found.isEmpty()) {
            tasks.taskComplete(connection, task);
            return false;
        }
        Transitions.Locked n = found.get();
        Instant now = clock.instant();
        switch (n.status()) {
            case AANGENOMEN -> {
                if (n.expiredAt(now)) {
                    return end(connection, task, n, NotificatieStatus.VERLOPEN, Reden.VERLOPEN);
                }
                transitions.apply(connection, n, NotificatieStatus.IN_VERZENDING, null);
                pogingen.pogingInsert(connection, n.id(), 1);
                return true;
            }
            case IN_VERZENDING -> {
                // Re-claim after an expired lease: the planned attempt 1 is reused, not a transition.
                return true;
            }
            case VERZONDEN -> {
                Optional<Poging> latest = pogingen.pogingLatest(connection, n.id());
                if (latest.isPresent() && latest.get().status() == PogingStatus.GEPLAND) {
                    return true;
                }
                if (latest.isEmpty() || latest.get().status().running() || latest.get().nummer() >= 2) {
                    tasks.taskComplete(connection, task);
                    return false;
                }
                if (n.expiredAt(now)) {
                    return end(connection, task, n, NotificatieStatus.VERLOPEN, Reden.VERLOPEN);
                }
                transitions.apply(connection, n, NotificatieStatus.VERZONDEN, null);
                pogingen.pogingInsert(connection, n.id(), 2);
                return true;
            }
            default -> {
                tasks.taskComplete(connection, task);
                return false;
            }
        }
    }

    private boolean end(Connection connection, Task task, Transitions.Locked n, NotificatieStatus naar, Reden reden) {
        transitions.apply(connection, n, naar, reden);
        tasks.taskComplete(connection, task);
        return false;
    }

    @Override
    public void execute(Task task) throws Exception {
        Job job = database.inTransaction(connection -> prepare(connection, task)).orElse(null);
        if (job == null) {
            return;
        }
        if (job.poging().requested()) {
            // An earlier claim (crashed, lease lost, or its call failed uncertainly) may have reached NotifyNL.
            Optional<NotifyNl.SendResult> known = lookUp(job);
            if (known.isPresent()) {
                commit(task, job, known.get());
                return;
            }
        }
        if (job.sealed().datasleutelGewrapt() == null) {
            throw new IllegalStateException("data key of notification " + job.sealed().id() + " is erased");
        }
        SecretKey key = envelope.unwrap(job.sealed().id(), job.sealed().datasleutelGewrapt(), job.sealed().kekVersie());
        String emailAddress = envelope.decrypt(key, job.sealed().id(), "ontvanger", job.sealed().ontvanger());
        Map<String, String> personalisation = mapper.readValue(
                envelope.decrypt(key, job.sealed().id(), "personalisatie", job.sealed().personalisatie()),
                new TypeReference<>() { });
        boolean stillOurs = database.inTransaction(connection -> {
            if (!tasks.taskExtendLease(connection, task, clock.instant().plus(lease))) {
                return false;
            }
            pogingen.pogingMarkRequested(connection, job.poging().id());
            return true;
        });
        if (!stillOurs) {
            return;
        }
        NotifyNl.SendResult result = notifyNl.sendEmail(job.berichttype().notifyTemplateId(), emailAddress,
                personalisation, job.poging().id());
        if (result instanceof NotifyNl.SendResult.Unavailable unavailable && unavailable.mayHaveArrived()
                && job.expiredAt(clock.instant())) {
            // geldig_tot has passed, but an attempt already at NotifyNL runs to its outcome (design §7.5):
            // only a lookup that does not find it may end the notification verlopen.
            result = lookUp(job).orElse(new NotifyNl.SendResult.Unavailable(unavailable.reason(), false));
        }
        commit(task, job, result);
    }

    /**
     * Searches NotifyNL by reference: the attempt was accepted ({@code Accepted}), NotifyNL cannot say now
     * ({@code Unavailable} that may have arrived), or empty: certainly not at NotifyNL.
     */
    private Optional<NotifyNl.SendResult> lookUp(Job job) {
        return switch (notifyNl.findByReference(job.poging().id())) {
            case NotifyNl.Lookup.Found found -> Optional.of(new NotifyNl.SendResult.Accepted(found.notifyId()));
            case NotifyNl.Lookup.NotFound notFound -> Optional.empty();
            case NotifyNl.Lookup.Unavailable unavailable ->
                    Optional.of(new NotifyNl.SendResult.Unavailable(unavailable.reason(), true));
        };
    }

    private Optional<Job> prepare(Connection connection, Task task) {
        Optional<Poging> poging = pogingen.pogingLatest(connection, task.notificatie())
                .filter(p -> p.status() == PogingStatus.GEPLAND);
        Optional<NotificatieReads.ForSending> sealed = notificaties.notificatieForSending(connection, task.notificatie());
        if (poging.isEmpty() || sealed.isEmpty()) {
            LOG.warning(() -> "send task " + task.id() + " found no planned attempt; completing it");
            transitions.lock(connection, task.notificatie());
            tasks.taskComplete(connection, task);
            return Optional.empty();
        }
        Berichttype berichttype = register.berichttype(connection, sealed.get().berichttype())
                .orElseThrow(() -> new IllegalStateException("unknown berichttype of notification " + task.notificatie()));
        return Optional.of(new Job(poging.get(), sealed.get(), berichttype));
    }

    private void commit(Task task, Job job, NotifyNl.SendResult result) {
        OwnedTask.underLocks(database, transitions, tasks, task, (connection, n) -> {
            switch (result) {
                case NotifyNl.SendResult.Accepted accepted -> accepted(connection, task, job, n, accepted.notifyId());
                case NotifyNl.SendResult.Rejected rejected -> {
                    pogingen.pogingSetStatus(connection, job.poging().id(), PogingStatus.PERMANENT_MISLUKT);
                    if (n.status() == NotificatieStatus.IN_VERZENDING || n.status() == NotificatieStatus.VERZONDEN) {
                        transitions.apply(connection, n, NotificatieStatus.NIET_BEZORGBAAR, Reden.ONBEREIKBAAR);
                        tasks.taskCompleteAllForNotification(connection, n.id());
                    } else {
                        tasks.taskComplete(connection, task);
                    }
                }
                case NotifyNl.SendResult.Unavailable unavailable -> {
                    Instant now = clock.instant();
                    if (n.expiredAt(now) && !unavailable.mayHaveArrived() && (n.status() == NotificatieStatus.IN_VERZENDING
                            || n.status() == NotificatieStatus.VERZONDEN)) {
                        transitions.apply(connection, n, NotificatieStatus.VERLOPEN, Reden.VERLOPEN);
                        tasks.taskCompleteAllForNotification(connection, n.id());
                    } else {
                        tasks.taskPostpone(connection, task, now.plus(backoff.delay(postponements(task) + 1)),
                                unavailable.reason());
                    }
                }
            }
        });
    }

    private void accepted(Connection connection, Task task, Job job, Transitions.Locked n, UUID notifyId) {
        Poging poging = pogingen.pogingLock(connection, job.poging().id()).orElseThrow();
        if (poging.status() == PogingStatus.GEPLAND) {
            pogingen.pogingMarkSent(connection, poging.id(), notifyId);
            if (n.status() == NotificatieStatus.IN_VERZENDING) {
                transitions.apply(connection, n, NotificatieStatus.VERZONDEN, null);
            }
            planReconciliation(connection, tasks, n, poging.id(), clock.instant().plus(firstReconciliation));
        } else if (!poging.knows(notifyId)) {
            // A receipt already adopted another id for this attempt: both e-mails went out.
            pogingen.pogingAddDuplicate(connection, poging.id(), notifyId);
        }
        tasks.taskComplete(connection, task);
    }

    /** The reconcile task of an attempt that NotifyNL accepted; whoever records the send plans it. */
    public static void planReconciliation(Connection connection, TaskRepository tasks, Transitions.Locked n,
                                          UUID poging, Instant due) {
        tasks.taskInsert(connection, TaskRepository.NewTask.forNotification(TaskKind.RECONCILIEREN, n.dvId(), n.id(),
                due, n.traceId()).withPoging(poging));
    }

    @Override
    public void onExhausted(Connection connection, Task task, TaskRepository taskRepository, String fout) {
        Transitions.Locked n = transitions.lock(connection, task.notificatie()).orElse(null);
        if (n != null && (n.status() == NotificatieStatus.AANGENOMEN || n.status() == NotificatieStatus.IN_VERZENDING
                || n.status() == NotificatieStatus.VERZONDEN)) {
            transitions.apply(connection, n, NotificatieStatus.TECHNISCH_MISLUKT, Reden.TECHNISCH);
            taskRepository.taskCompleteAllForNotification(connection, n.id());
        } else {
            taskRepository.taskComplete(connection, task);
        }
    }

    /** The berichttype's retry policy bounds the NMC-internal failures of its send tasks. */
    @Override
    public int maxFailures(Connection connection, Task task) {
        // The caller holds the notification's lock already, so this reads the locked row again, cheaply.
        return transitions.lock(connection, task.notificatie())
                .flatMap(n -> register.berichttype(connection, n.berichttype()))
                .map(Berichttype::maxPogingenteller)
                .orElse(DEFAULT_MAX_FAILURES);
    }

    private int postponements(Task task) {
        try {
            return mapper.readTree(task.payload()).path("uitstel").asInt(0);
        } catch (java.io.IOException e) {
            return 0;
        }
    }

    private record Job(Poging poging, NotificatieReads.ForSending sealed, Berichttype berichttype) {

        boolean expiredAt(Instant now) {
            return sealed.geldigTot() != null && !now.isBefore(sealed.geldigTot());
        }
    }
}
