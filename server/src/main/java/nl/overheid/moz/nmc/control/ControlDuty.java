package nl.overheid.moz.nmc.control;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.Statement;
import nl.overheid.moz.nmc.engine.Duty;
import nl.overheid.moz.nmc.engine.WorkSignals;
import nl.overheid.moz.nmc.observe.NmcMetrics;

/**
 * The control duty (design §6, {@code controle}): periodically plans the missing task of every live
 * notification that has none, so that a crash between two steps, or a bug, can delay a notification but
 * never strand it. aangenomen and in-verzending get a send task (a re-claim reuses the planned attempt);
 * verzonden gets a reconcile task when an attempt is running, else a send task; bezorgd gets its finalise
 * task; a stored receipt without a receipt task gets one. It only inserts tasks, guarded by the unique
 * indexes, so several NMC instances running it at once are harmless. A send or reconcile task spends the budget
 * of its berichttype's NotifyNL service (see {@code planning/NotificatieTasks}).
 */
public final class ControlDuty implements Duty {

    private static final Logger LOG = Logger.getLogger(ControlDuty.class.getName());

    private static final String NO_TASK = """
            NOT EXISTS (SELECT 1 FROM taak t WHERE t.notificatie = n.id AND t.soort <> 'verwerken')
            """;

    private static final Statement TASK_PLAN_MISSING_SEND = Statement.named("taskPlanMissingSend", """
            INSERT INTO taak (soort, dv_id, notificatie, due, trace_id, budget)
            SELECT 'verzenden', n.dv_id, n.id, :now, n.trace_id, b.notify_service
              FROM notificatie n
              JOIN berichttype b ON b.code = n.berichttype
             WHERE n.status IN ('aangenomen', 'in-verzending') AND %s
            ON CONFLICT DO NOTHING
            """.formatted(NO_TASK));

    private static final Statement TASK_PLAN_MISSING_AFTER_SENT = Statement.named("taskPlanMissingAfterSent", """
            INSERT INTO taak (soort, dv_id, notificatie, poging, due, trace_id, budget)
            SELECT CASE WHEN running.id IS NULL THEN 'verzenden' ELSE 'reconcilieren' END,
                   n.dv_id, n.id, running.id, :now, n.trace_id, b.notify_service
              FROM notificatie n
              JOIN berichttype b ON b.code = n.berichttype
              LEFT JOIN LATERAL (SELECT p.id FROM poging p
                                  WHERE p.notificatie = n.id AND p.status IN ('verzonden', 'onbekend')
                                  ORDER BY p.nummer DESC LIMIT 1) running ON true
             WHERE n.status = 'verzonden' AND %s
            ON CONFLICT DO NOTHING
            """.formatted(NO_TASK));

    private static final Statement TASK_PLAN_MISSING_FINALISE = Statement.named("taskPlanMissingFinalise", """
            INSERT INTO taak (soort, dv_id, notificatie, due, trace_id)
            SELECT 'vaststellen', n.dv_id, n.id,
                   coalesce((SELECT max(p.ontvangst_completed_at) FROM poging p
                              WHERE p.notificatie = n.id AND p.status = 'bezorgd'), :now)
                     + CAST(:margin AS interval),
                   n.trace_id
              FROM notificatie n
             WHERE n.status = 'bezorgd' AND %s
            ON CONFLICT DO NOTHING
            """.formatted(NO_TASK));

    private static final Statement TASK_PLAN_MISSING_RECEIPTS = Statement.named("taskPlanMissingReceipts", """
            INSERT INTO taak (soort, dv_id, notificatie, poging, ontvangst, ontvangst_completed_at, due, trace_id)
            SELECT DISTINCT ON (o.poging) 'verwerken', n.dv_id, n.id, o.poging, o.id, o.completed_at, :now, n.trace_id
              FROM ontvangst o
              JOIN poging p ON p.id = o.poging
              JOIN notificatie n ON n.id = p.notificatie
             WHERE o.verwerkt_op IS NULL
               AND NOT EXISTS (SELECT 1 FROM taak t WHERE t.soort = 'verwerken' AND t.poging = o.poging)
             ORDER BY o.poging, o.completed_at NULLS LAST, o.id
            ON CONFLICT DO NOTHING
            """);

    private final Database database;
    private final Clock clock;
    private final Duration finaliseMargin;
    private final WorkSignals signals;
    private final NmcMetrics metrics;

    /** @param finaliseMargin MEBV period plus callback window: a finalise task is due that long after delivery */
    public ControlDuty(Database database, Clock clock, Duration finaliseMargin, WorkSignals signals,
                       NmcMetrics metrics) {
        this.database = database;
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
        long planned = plan(TASK_PLAN_MISSING_SEND, now) + plan(TASK_PLAN_MISSING_AFTER_SENT, now)
                + database.inTransaction(tx -> TASK_PLAN_MISSING_FINALISE.dml(tx).addParam("now", now)
                        .addParam("margin", finaliseMargin).execute())
                + plan(TASK_PLAN_MISSING_RECEIPTS, now);
        if (planned > 0) {
            LOG.warning(() -> "control duty planned " + planned + " missing task(s)");
            metrics.tasksRepaired(planned);
            signals.nudgeAll();
        }
        return (int) planned;
    }

    private long plan(Statement statement, Instant now) {
        return database.inTransaction(tx -> statement.dml(tx).addParam("now", now).execute());
    }
}
