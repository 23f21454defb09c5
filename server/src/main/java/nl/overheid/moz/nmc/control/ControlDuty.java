package nl.overheid.moz.nmc.control;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;
import nl.overheid.moz.nmc.engine.TaskRepository;
import nl.overheid.moz.nmc.engine.WorkSignals;
import nl.overheid.moz.nmc.observe.NmcMetrics;

/**
 * The control duty (design §6, {@code controle}): periodically plans the missing task of every live
 * notification that has none, so that a crash between two steps, or a bug, can delay a notification but
 * never strand it. aangenomen and in-verzending get a send task (a re-claim reuses the planned attempt);
 * verzonden gets a reconcile task when an attempt is running, else a send task; bezorgd gets its finalise
 * task; a stored receipt without a receipt task gets one. A send parked for NotifyNL's setup (an operator's
 * to reopen) is reopened once its geldig_tot has passed, so that the send ends the notification verlopen: the seed
 * bounds that wait by geldig_tot alone. It only inserts tasks, guarded by the unique indexes, and reopens parked
 * ones, so several NMC instances running it at once are harmless. A send or reconcile task spends the budget
 * of its berichttype's NotifyNL service (see {@code planning/NotificatieTasks}).
 */
public final class ControlDuty implements Duty {

    private static final Logger LOG = Logger.getLogger(ControlDuty.class.getName());
    /** Parked sends reopened per round: one short transaction; the next round takes the rest. */
    private static final int EXPIRED_PER_ROUND = 500;

    private final Database database;
    private final ControlRepository control;
    private final TaskRepository tasks;
    private final Clock clock;
    private final Duration finaliseMargin;
    private final WorkSignals signals;
    private final NmcMetrics metrics;

    /** @param finaliseMargin MEBV period plus callback window: a finalise task is due that long after delivery */
    public ControlDuty(
            Database database,
            ControlRepository control,
            TaskRepository tasks,
            Clock clock,
            Duration finaliseMargin,
            WorkSignals signals,
            NmcMetrics metrics) {
        this.database = database;
        this.control = control;
        this.tasks = tasks;
        this.clock = clock;
        this.finaliseMargin = finaliseMargin;
        this.signals = signals;
        this.metrics = metrics;
    }

    @Override
    public String name() {
        return "controle";
    }

    /** Plans every missing task now; returns how many it planned (each is logged: it means a step was lost). */
    @Override
    public int runOnce() {
        Instant now = clock.instant();
        // One short transaction per repair: a long write transaction would hold back the feed's watermark.
        long planned = database.inTransaction(tx -> control.planMissingSend(tx, now))
                + database.inTransaction(tx -> control.planMissingAfterSent(tx, now))
                + database.inTransaction(tx -> control.planMissingFinalise(tx, now, finaliseMargin))
                + database.inTransaction(tx -> control.planMissingReceipts(tx, now));
        int expired = database.inTransaction(
                        tx -> tasks.reopenParked(tx, control.parkedSetupSendsExpired(tx, now, EXPIRED_PER_ROUND), now))
                .size();
        if (expired > 0) {
            LOG.info(() -> "control duty reopened " + expired
                    + " send task(s) parked for NotifyNL's setup whose geldig_tot has passed: they end verlopen");
            signals.nudgeAll();
        }
        if (planned > 0) {
            LOG.warning(() -> "control duty planned " + planned + " missing task(s)");
            metrics.tasksRepaired(planned);
            signals.nudgeAll();
        }
        return (int) planned;
    }
}
