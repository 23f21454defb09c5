package nl.overheid.moz.nmc.receipts;

import java.sql.Connection;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.OwnedTask;
import nl.overheid.moz.nmc.engine.Task;
import nl.overheid.moz.nmc.engine.TaskHandler;
import nl.overheid.moz.nmc.engine.TaskKind;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.lifecycle.Poging;
import nl.overheid.moz.nmc.lifecycle.PogingRepository;
import nl.overheid.moz.nmc.lifecycle.PogingStatus;
import nl.overheid.moz.nmc.lifecycle.Transitions;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.sending.SendPipeline;

/**
 * The {@code verwerken} task: applies the stored receipts of one attempt under the notification's lock, in
 * their own completed_at order (capped at the system clock), by {@link ReceiptRules}.
 */
public final class ReceiptProcessor implements TaskHandler {

    private static final Logger LOG = Logger.getLogger(ReceiptProcessor.class.getName());

    private final Database database;
    private final TaskRepository tasks;
    private final PogingRepository pogingen;
    private final OntvangstRepository ontvangsten;
    private final Transitions transitions;
    private final Clock clock;
    private final Duration mebvPeriod;
    private final Duration callbackWindow;
    private final Duration firstReconciliation;
    private final NmcMetrics metrics;

    /**
     * @param mebvPeriod     the vaststellingstermijn (7 days in production)
     * @param callbackWindow NotifyNL's callback retry window, the finalise task's margin
     * @param firstReconciliation when an attempt adopted from a receipt is first reconciled
     */
    public ReceiptProcessor(Database database, TaskRepository tasks, PogingRepository pogingen,
                            OntvangstRepository ontvangsten, Transitions transitions, Clock clock,
                            Duration mebvPeriod, Duration callbackWindow, Duration firstReconciliation,
                            NmcMetrics metrics) {
        this.database = database;
        this.tasks = tasks;
        this.pogingen = pogingen;
        this.ontvangsten = ontvangsten;
        this.transitions = transitions;
        this.clock = clock;
        this.mebvPeriod = mebvPeriod;
        this.callbackWindow = callbackWindow;
        this.firstReconciliation = firstReconciliation;
        this.metrics = metrics;
    }

    @Override
    public TaskKind kind() {
        return TaskKind.VERWERKEN;
    }

    @Override
    public void execute(Task task) {
        OwnedTask.underLocks(database, transitions, tasks, task, (connection, locked) -> {
            Transitions.Locked n = locked;
            for (Ontvangst receipt : ontvangsten.ontvangstUnprocessed(connection, task.poging())) {
                n = apply(connection, n, receipt);
                ontvangsten.ontvangstMarkProcessed(connection, receipt.id(), clock.instant());
            }
            tasks.taskComplete(connection, task);
        });
    }

    private Transitions.Locked apply(Connection connection, Transitions.Locked n, Ontvangst receipt) {
        Instant now = clock.instant();
        Poging poging = pogingen.pogingLock(connection, receipt.poging()).orElseThrow();
        if (poging.status() == PogingStatus.GEPLAND) {
            // The worker died between NotifyNL's 201 and its commit: act on its behalf.
            pogingen.pogingMarkSent(connection, poging.id(), receipt.notifyId());
            if (n.status() == NotificatieStatus.IN_VERZENDING) {
                n = transitions.apply(connection, n, NotificatieStatus.VERZONDEN, null);
            }
            tasks.taskCompleteForNotification(connection, n.id(), TaskKind.VERZENDEN);
            if (!n.status().terminal()) {
                SendPipeline.planReconciliation(connection, tasks, n, poging.id(), now.plus(firstReconciliation));
            }
            poging = pogingen.pogingLock(connection, poging.id()).orElseThrow();
        } else if (!poging.knows(receipt.notifyId())) {
            pogingen.pogingAddDuplicate(connection, poging.id(), receipt.notifyId());
        }
        Instant completedAt = receipt.completedAt() == null || receipt.completedAt().isAfter(now)
                ? now : receipt.completedAt();
        boolean older = poging.ontvangstCompletedAt() != null && completedAt.isBefore(poging.ontvangstCompletedAt());
        boolean within = poging.ontvangstCompletedAt() == null
                || !completedAt.isAfter(poging.ontvangstCompletedAt().plus(mebvPeriod));
        ReceiptRules.Decision decision = ReceiptRules.judge(new ReceiptRules.Situation(n.status(), poging.nummer(),
                poging.status(), older, ReceiptStatus.of(receipt.status()),
                poging.status() == PogingStatus.BEZORGD, within, n.expiredAt(now)));
        if (decision.unknownStatus()) {
            metrics.receiptStatusUnknown();
            LOG.info(() -> "receipt " + receipt.id() + " has a status the NMC does not know; recorded only");
        }
        if (decision.recordOnly()) {
            if (n.status().terminal()) {
                tasks.taskCompleteAllForNotification(connection, n.id());
            }
            return n;
        }
        if (decision.pogingStatus() != null) {
            pogingen.pogingApplyOutcome(connection, poging.id(), decision.pogingStatus(), completedAt);
            tasks.taskCompleteForNotification(connection, n.id(), TaskKind.RECONCILIEREN);
        }
        if (decision.naar() != null) {
            n = transitions.apply(connection, n, decision.naar(), decision.reden());
        }
        if (decision.completeFinalise()) {
            tasks.taskCompleteForNotification(connection, n.id(), TaskKind.VASTSTELLEN);
        }
        if (decision.planFinalise()) {
            tasks.taskInsert(connection, TaskRepository.NewTask.forNotification(TaskKind.VASTSTELLEN, n.dvId(), n.id(),
                    completedAt.plus(mebvPeriod).plus(callbackWindow), n.traceId()));
        }
        if (decision.planResend()) {
            tasks.taskInsert(connection, TaskRepository.NewTask.forNotification(TaskKind.VERZENDEN, n.dvId(), n.id(),
                    now, n.traceId()));
        }
        if (n.status().terminal()) {
            tasks.taskCompleteAllForNotification(connection, n.id());
        }
        return n;
    }

}
