package nl.overheid.moz.nmc.receipts;

import io.helidon.dbclient.DbTransaction;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.engine.LockedWork;
import nl.overheid.moz.nmc.engine.OwnedTasks;
import nl.overheid.moz.nmc.engine.SubjectLock;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Poging;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.lifecycle.PogingStatus;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.planning.HandlerSupport;
import nl.overheid.moz.nmc.planning.NotificatieTasks;

/**
 * The {@code verwerken} task: applies the stored receipts of one attempt under the notification's lock, in
 * their own completed_at order (capped at the system clock), by {@link ReceiptRules}. Every stored receipt has
 * a task of its own; the first of an attempt's tasks to run applies every receipt stored by then and completes
 * their tasks too.
 */
public final class ReceiptProcessor implements LockedWork<Transitions.Locked> {

    private static final Logger LOG = Logger.getLogger(ReceiptProcessor.class.getName());

    private final OwnedTasks owned;
    private final TaskRepository tasks;
    private final NotificatieTasks notificatieTasks;
    private final PogingRepository pogingen;
    private final ReceiptRepository receiptRepository;
    private final Transitions transitions;
    private final Clock clock;
    private final Duration mebvPeriod;
    private final Duration finaliseMargin;
    private final Duration firstReconciliation;
    private final NmcMetrics metrics;

    /**
     * @param mebvPeriod     the vaststellingstermijn (7 days in production)
     * @param finaliseMargin how long after a delivery the finalise task is due: the MEBV period plus NotifyNL's
     *                       callback window, so a failure receipt within the period cannot cross it
     * @param firstReconciliation when an attempt adopted from a receipt is first reconciled
     */
    public ReceiptProcessor(
            HandlerSupport support,
            ReceiptRepository receiptRepository,
            Duration mebvPeriod,
            Duration finaliseMargin,
            Duration firstReconciliation) {
        this.owned = support.owned();
        this.tasks = support.tasks();
        this.notificatieTasks = support.notificatieTasks();
        this.pogingen = support.pogingen();
        this.receiptRepository = receiptRepository;
        this.transitions = support.transitions();
        this.clock = support.clock();
        this.mebvPeriod = mebvPeriod;
        this.finaliseMargin = finaliseMargin;
        this.firstReconciliation = firstReconciliation;
        this.metrics = support.metrics();
    }

    @Override
    public TaskKind kind() {
        return TaskKind.VERWERKEN;
    }

    @Override
    public SubjectLock<Transitions.Locked> subjectLock() {
        return notificatieTasks.lock();
    }

    @Override
    public OwnedTasks owned() {
        return owned;
    }

    /** Applying receipts is the database's work alone: a claimed batch is applied in one transaction. */
    @Override
    public void work(DbTransaction tx, Task task, Transitions.Locked locked) {
        Transitions.Locked n = locked;
        List<Long> applied = new ArrayList<>();
        for (Receipt receipt : receiptRepository.unprocessed(tx, task.poging())) {
            n = apply(tx, n, receipt);
            receiptRepository.markProcessed(tx, receipt.id(), clock.instant());
            applied.add(receipt.id());
        }
        // Every stored receipt has a task of its own (one stored after the read above keeps its task and
        // is applied by it, at once); the tasks of the receipts applied here have nothing left to do.
        tasks.completeForReceipts(tx, applied);
        tasks.complete(tx, task);
    }

    private Transitions.Locked apply(DbTransaction tx, Transitions.Locked n, Receipt receipt) {
        Instant now = clock.instant();
        Poging poging = pogingen.lock(tx, receipt.poging()).orElseThrow();
        if (poging.status() == PogingStatus.GEPLAND) {
            // The worker died between NotifyNL's 201 and its commit: act on its behalf.
            pogingen.markSent(tx, poging.id(), receipt.notifyId());
            if (n.status() == NotificatieStatus.IN_VERZENDING) {
                n = transitions.apply(tx, n, NotificatieStatus.VERZONDEN, null);
            }
            notificatieTasks.complete(tx, n, TaskKind.VERZENDEN);
            if (!n.status().terminal()) {
                notificatieTasks.planReconciliation(tx, n, poging, now.plus(firstReconciliation));
            }
            poging = pogingen.lock(tx, poging.id()).orElseThrow();
        } else if (!poging.knows(receipt.notifyId()) && pogingen.addDuplicate(tx, poging.id(), receipt.notifyId())) {
            metrics.duplicateNotifyId();
        }
        Instant completedAt = ReceiptRules.effectiveCompletedAt(receipt.completedAt(), now);
        boolean older = poging.receiptCompletedAt() != null && completedAt.isBefore(poging.receiptCompletedAt());
        UUID pogingId = poging.id();
        Optional<Poging> otherDelivered = pogingen.all(tx, n.id()).stream()
                .filter(p -> !p.id().equals(pogingId) && p.status() == PogingStatus.BEZORGD)
                .findFirst();
        ReceiptRules.Decision decision = ReceiptRules.judge(new ReceiptRules.Situation(
                n.status(),
                poging.number(),
                poging.status(),
                older,
                ReceiptStatus.of(receipt.status()),
                poging.deliveryProofAt() != null,
                ReceiptRules.withinMebvPeriod(poging.deliveryProofAt(), completedAt, mebvPeriod),
                n.expiredAt(now),
                otherDelivered.isPresent()));
        // The processor applies exactly the effects the Decision declares (the ones ReceiptRulesTest checks
        // over every situation), in this order: attempt, delivery proof, transition, finalise task, resend.
        if (decision instanceof ReceiptRules.Decision.UnknownStatus) {
            metrics.receiptStatusUnknown();
            LOG.info(() -> "receipt " + receipt.id() + " has a status the NMC does not know; recorded only");
        }
        Transitions.Locked after = n;
        if (decision.outcome() != null) {
            // recorded on its attempt whatever it does to the notification ("op de poging vastgelegd"), and the
            // attempt's outcome is known: its reconciliation ends
            pogingen.applyOutcome(tx, poging.id(), decision.outcome(), completedAt);
            notificatieTasks.completeReconciliation(tx, n, poging.id());
        }
        Instant proof = null;
        if (decision instanceof ReceiptRules.Decision.Delivered) {
            proof = completedAt;
            pogingen.markDeliveryProof(tx, n.id(), poging.id(), proof);
        } else if (decision instanceof ReceiptRules.Decision.ProofMoves) {
            Poging other = otherDelivered.orElseThrow();
            proof = other.receiptCompletedAt();
            pogingen.markDeliveryProof(tx, n.id(), other.id(), proof);
        } else if (decision.clearsProof()) {
            pogingen.clearDeliveryProof(tx, poging.id());
        }
        if (decision.to() != null) {
            after = transitions.apply(tx, after, decision.to(), decision.reden());
        }
        if (decision.completeFinalise()) {
            notificatieTasks.complete(tx, after, TaskKind.VASTSTELLEN);
        }
        if (decision.planFinalise()) {
            notificatieTasks.planFinalise(tx, after, proof.plus(finaliseMargin));
        }
        if (decision.planResend()) {
            notificatieTasks.planSend(tx, after, now);
        }
        // Centralised regime (ADR 0024): every permanent-failure is followed by the report of the address to the
        // Profielservice, whatever the decision (older, recorded, within or after the MEBV period, under a
        // duplicate id, on a terminal notification); once per attempt, i.e. per address it went to. The event
        // itself carries no personal data.
        if (ReceiptStatus.of(receipt.status()) == ReceiptStatus.PERMANENT_FAILURE
                && after.centraal()
                && pogingen.markInvalidReported(tx, poging.id(), now)) {
            notificatieTasks.planInvalidReport(tx, after, poging.id(), now);
        }
        // Only a transition changes the notification's tasks: a late receipt on a terminal notification that
        // changes nothing must not re-plan (and so postpone) its erasure.
        if (decision.to() != null) {
            if (after.status().terminal()) {
                notificatieTasks.completeAll(tx, after);
            } else if (n.status().terminal()) {
                // A late receipt re-opened bezorgstatus-onbekend: its erasure waits for the next terminal status.
                notificatieTasks.complete(tx, after, TaskKind.WISSEN);
            }
        }
        return after;
    }
}
