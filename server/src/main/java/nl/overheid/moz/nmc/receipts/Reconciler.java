package nl.overheid.moz.nmc.receipts;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.SubjectLock;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskHandler;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.engine.UnusedTokens;
import nl.overheid.moz.nmc.engine.WorkSignals;
import nl.overheid.moz.nmc.ldv.DataSubjects;
import nl.overheid.moz.nmc.ldv.ProcessingLog;
import nl.overheid.moz.nmc.lifecycle.NotificatieRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Poging;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.lifecycle.PogingStatus;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.planning.HandlerSupport;
import nl.overheid.moz.nmc.planning.NotificatieTasks;
import nl.overheid.moz.nmc.sending.NotifyNl;
import nl.overheid.moz.nmc.sending.NotifyNlServices;
import nl.overheid.moz.nmc.trace.Span;

/**
 * The {@code reconcilieren} task: asks NotifyNL about an attempt that has no receipt yet, so a lost callback
 * (or NotifyNL's own technical failure, which sends none) cannot leave a notification waiting forever. It asks
 * {@code GET /v2/notifications/{id}} for every NotifyNL id of the attempt (its own and each duplicate), and by
 * reference ({@code GET /v2/notifications?reference=}, every page) when no id is known or when the attempt was
 * POSTed more than once, so a duplicate e-mail whose id the NMC never learnt (its callback lost) is found too; each question is preceded by its LDV record (NotifyNL's answer holds
 * the address), and the lease is extended right before every record and every question. An outcome found here goes through the {@link ReceiptStore} like a callback; 404 for every
 * id, or NotifyNL's retention passing without an outcome, ends in bezorgstatus-onbekend. Every question goes to
 * the NotifyNL service that sent the attempt, the task's budget key, with that service's key (another service's
 * key finds nothing: 404, which would end it onbekend). Claims take reconciliation's share of that service's budget, one
 * token per task; a task that asks nothing (the attempt no longer runs, the LDV store did not take the record) gives it
 * back. NotifyNL does not count status queries against its send limit, so the extra questions about an
 * attempt's duplicates cost no more than their token.
 */
public final class Reconciler implements TaskHandler {

    private final Database database;
    private final OwnedTasks owned;
    private final TaskRepository tasks;
    private final NotificatieTasks notificatieTasks;
    private final PogingRepository pogingen;
    private final Transitions transitions;
    private final ReceiptStore receipts;
    private final NotifyNlServices notifyNl;
    private final UnusedTokens unusedTokens;
    private final NotificatieRepository reads;
    private final ProcessingLog ldv;
    private final ReconcileSchedule schedule;
    private final Clock clock;
    private final java.time.Duration lease;
    private final WorkSignals signals;
    private final nl.overheid.moz.nmc.observe.NmcMetrics metrics;

    public Reconciler(
            HandlerSupport support,
            Database database,
            ReceiptStore receipts,
            NotifyNlServices notifyNl,
            UnusedTokens unusedTokens,
            ReconcileSchedule schedule,
            WorkSignals signals) {
        this.database = database;
        this.owned = support.owned();
        this.tasks = support.tasks();
        this.notificatieTasks = support.notificatieTasks();
        this.pogingen = support.pogingen();
        this.transitions = support.transitions();
        this.receipts = receipts;
        this.notifyNl = notifyNl;
        this.unusedTokens = unusedTokens;
        this.reads = support.notificaties();
        this.ldv = support.ldv();
        this.schedule = schedule;
        this.clock = support.clock();
        this.lease = support.lease();
        this.signals = signals;
        this.metrics = support.metrics();
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
        return notificatieTasks.lock();
    }

    @Override
    public void execute(Task task) {
        AtomicBoolean asked = new AtomicBoolean();
        try {
            reconcile(task, asked);
        } finally {
            if (!asked.get()) {
                try {
                    unusedTokens.giveBack(task, budget());
                } catch (RuntimeException notGiven) {
                    // only an under-used budget
                }
            }
        }
    }

    /** Asks NotifyNL about the task's attempt; {@code asked} is set before the first question. */
    private void reconcile(Task task, AtomicBoolean asked) {
        record Subject(Poging poging, NotificatieRepository.ProcessingContext context) {}
        Optional<Subject> subject = database.inTransaction(tx -> pogingen.byId(tx, task.poging())
                .flatMap(p -> reads.processingContext(tx, p.notificatie()).map(c -> new Subject(p, c))));
        if (subject.isEmpty()
                || !subject.get().poging().status().running()
                || subject.get().poging().sentAt() == null) {
            owned.underLocks(task, subjectLock(), (tx, n) -> tasks.complete(tx, task));
            return;
        }
        Poging poging = subject.get().poging();
        NotificatieRepository.ProcessingContext context = subject.get().context();
        Instant now = clock.instant();
        // Every NotifyNL id the attempt has (its own and each duplicate), each asked by id.
        List<UUID> ids = new ArrayList<>();
        if (poging.notifyId() != null) {
            ids.add(poging.notifyId());
        }
        ids.addAll(poging.duplicateNotifyIds());
        // The task's budget is the service that sent the attempt (planned so at the send's commit).
        NotifyNl service = notifyNl.of(task.budget());
        boolean pending = false;
        boolean outcome = false; // NotifyNL gave an outcome: the receipt task decides, never the retention's end
        boolean unavailable = false;
        boolean ldvDown = false; // the processing log refused the record: NotifyNL was not asked at all
        String reason = null;
        for (UUID id : ids) {
            Span span = Span.childOf(context.traceId(), context.acceptanceSpanId());
            if (!ours(task)) {
                return; // another claim took the task: it asks, this one writes nothing
            }
            ProcessingLog.Processing query = query(context, span, now);
            if (ldv.record(query) instanceof ProcessingLog.Written.Unavailable down) {
                unavailable = true;
                ldvDown = true;
                reason = "ldv-" + down.reason();
                break;
            }
            if (!ours(task)) {
                ldv.failed(query, ProcessingLog.NOT_CALLED, clock.instant()); // the other claim asks
                return;
            }
            asked.set(true);
            switch (service.findById(id, span)) {
                case NotifyNl.Lookup.Found found
                when ReceiptStatus.of(found.status()) != ReceiptStatus.UNKNOWN -> {
                    store(poging, found, now);
                    // The receipt task completes this task when it applies the outcome; until then ask later.
                    pending = true;
                    outcome = true;
                }
                case NotifyNl.Lookup.Found stillSending -> pending = true;
                case NotifyNl.Lookup.NotFound notFound -> {}
                case NotifyNl.Lookup.Unavailable down -> {
                    ldv.failed(query, down.reason(), clock.instant());
                    unavailable = true;
                    reason = down.reason();
                }
            }
        }
        // By reference when no id is known, and also when the attempt was POSTed more than once: NotifyNL may hold an
        // e-mail under it whose id the NMC never learnt (the claim that got its 201 lost its lease, and the
        // duplicate's callback was lost), so every id sent under the reference is learnt here.
        if (!unavailable && (ids.isEmpty() || poging.maybeSentTwice())) {
            Span span = Span.childOf(context.traceId(), context.acceptanceSpanId());
            if (!ours(task)) {
                return;
            }
            ProcessingLog.Processing query = query(context, span, now);
            if (ldv.record(query) instanceof ProcessingLog.Written.Unavailable down) {
                unavailable = true;
                ldvDown = true;
                reason = "ldv-" + down.reason();
            } else {
                if (!ours(task)) {
                    ldv.failed(query, ProcessingLog.NOT_CALLED, clock.instant());
                    return;
                }
                asked.set(true);
                switch (service.findAllByReference(poging.id(), span)) {
                    case NotifyNl.ReferenceLookup.Found all -> {
                        for (NotifyNl.Lookup.Found found : all.notifications()) {
                            if (ids.contains(found.notifyId())) {
                                continue; // asked by its id above
                            }
                            pending = true;
                            if (ReceiptStatus.of(found.status()) != ReceiptStatus.UNKNOWN) {
                                store(poging, found, now); // its receipt task records the new id as a duplicate
                                outcome = true;
                            } else {
                                learn(task, poging, found.notifyId()); // still sending: asked by id from now on
                            }
                        }
                    }
                    case NotifyNl.ReferenceLookup.Unavailable down -> {
                        ldv.failed(query, down.reason(), clock.instant());
                        unavailable = true;
                        reason = down.reason();
                    }
                }
            }
        }
        if (outcome) {
            // Even past NotifyNL's retention: an outcome was found, so the inquiry does not end without one (seed:
            // "het verstrijken van de bewaartermijn van NotifyNL zonder uitkomst"). Its receipt task completes this
            // task; should that task fail, this one asks again.
            Instant next = schedule.next(poging.sentAt(), now)
                    .orElse(now.plus(schedule.steps().getFirst()));
            owned.underLocks(task, subjectLock(), (tx, n) -> tasks.postpone(tx, task, next, null));
        } else if (pending) {
            reschedule(task, poging, now);
        } else if (unavailable
                && !ldvDown
                && schedule.endedBefore(
                        poging.sentAt(), now.minus(schedule.steps().getFirst()))) {
            // NotifyNL still unreachable a step after its retention ended: no outcome came, and none can come any more
            // (seed: "het verstrijken van de bewaartermijn van NotifyNL zonder uitkomst"). One blip at the last query
            // is asked again: NotifyNL deletes nightly what was sent before London midnight minus the retention
            // (Worth-NL/notifynl-api app/celery/nightly_tasks.py at 3684cb1,
            // delete-notifications-older-than-retention),
            // so at the retention's end it still holds the e-mail. Our own processing log being down asks nothing of
            // NotifyNL, so it only postpones.
            unknown(task);
        } else if (unavailable) {
            String why = reason;
            owned.underLocks(
                    task,
                    subjectLock(),
                    (tx, n) ->
                            tasks.postpone(tx, task, now.plus(schedule.steps().getFirst()), why));
        } else {
            unknown(task);
        }
    }

    /** The processing-log record of a status query about to be made (written before it; without it, no query). */
    private ProcessingLog.Processing query(NotificatieRepository.ProcessingContext context, Span span, Instant now) {
        return new ProcessingLog.Processing(
                span,
                ProcessingLog.Operation.STATUS_OPVRAGEN,
                context.processingActivity(),
                new DataSubjects.DataSubject(context.dataSubject(), context.dataSubjectType()),
                now);
    }

    /** An outcome NotifyNL reported goes through the receipt store, like a callback. */
    private void store(Poging poging, NotifyNl.Lookup.Found found, Instant now) {
        ReceiptStore.Outcome outcome = receipts.store(new ReceiptRepository.Incoming(
                poging.id(),
                found.notifyId(),
                found.status(),
                null,
                found.completedAt().orElse(now),
                null,
                "email",
                null,
                null));
        if (outcome == ReceiptStore.Outcome.STORED) {
            signals.nudge(TaskKind.VERWERKEN);
        }
    }

    /** A second e-mail of the attempt, still sending: its id is recorded, so it is asked by id from now on. */
    private void learn(Task task, Poging poging, UUID notifyId) {
        owned.underLocks(task, subjectLock(), (tx, n) -> {
            if (pogingen.addDuplicate(tx, poging.id(), notifyId)) {
                metrics.duplicateNotifyId();
            }
        });
    }

    /** Extends the claim's lease right before an external call; {@code false}: the task is another claim's now. */
    private boolean ours(Task task) {
        return owned.extendLease(task, clock.instant().plus(lease));
    }

    private void reschedule(Task task, Poging poging, Instant now) {
        Optional<Instant> next = schedule.next(poging.sentAt(), now);
        if (next.isEmpty()) {
            unknown(task);
            return;
        }
        owned.underLocks(task, subjectLock(), (tx, n) -> tasks.postpone(tx, task, next.get(), null));
    }

    /** No outcome can be had any more: the attempt is onbekend, the notification bezorgstatus-onbekend. */
    private void unknown(Task task) {
        owned.underLocks(task, subjectLock(), (tx, n) -> {
            Poging poging = pogingen.lock(tx, task.poging()).orElseThrow();
            if (poging.status() == PogingStatus.VERZONDEN) {
                pogingen.setStatus(tx, poging.id(), PogingStatus.ONBEKEND);
            }
            if (n.status() == NotificatieStatus.VERZONDEN && poging.status().running()) {
                Transitions.Locked onbekend = transitions.apply(tx, n, NotificatieStatus.BEZORGSTATUS_ONBEKEND, null);
                notificatieTasks.completeAll(tx, onbekend);
            } else {
                tasks.complete(tx, task);
            }
        });
    }
}
