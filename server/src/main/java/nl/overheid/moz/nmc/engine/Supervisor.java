package nl.overheid.moz.nmc.engine;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.logging.Level;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.Sql;

/**
 * The control duty (design §6): periodically plans the missing task of every live notification that has
 * none, so that a crash between two steps, or a bug, can delay a notification but never strand it.
 * aangenomen and in-verzending get a send task (a re-claim reuses the planned attempt); verzonden gets a
 * reconcile task when an attempt is running, else a send task; bezorgd gets its finalise task; a stored
 * receipt without a receipt task gets one. It only inserts tasks, guarded by the unique indexes, so several
 * NMC instances running it at once are harmless.
 */
public final class Supervisor implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Supervisor.class.getName());

    private static final String NO_TASK = """
            NOT EXISTS (SELECT 1 FROM taak t WHERE t.notificatie = n.id AND t.soort <> 'verwerken')
            """;

    private static final String PLAN_SEND = """
            INSERT INTO taak (soort, dv_id, notificatie, due, trace_id)
            SELECT 'verzenden', n.dv_id, n.id, :now, n.trace_id
              FROM notificatie n
             WHERE n.status IN ('aangenomen', 'in-verzending') AND %s
            ON CONFLICT DO NOTHING
            """.formatted(NO_TASK);

    private static final String PLAN_AFTER_SENT = """
            INSERT INTO taak (soort, dv_id, notificatie, poging, due, trace_id)
            SELECT CASE WHEN running.id IS NULL THEN 'verzenden' ELSE 'reconcilieren' END,
                   n.dv_id, n.id, running.id, :now, n.trace_id
              FROM notificatie n
              LEFT JOIN LATERAL (SELECT p.id FROM poging p
                                  WHERE p.notificatie = n.id AND p.status IN ('verzonden', 'onbekend')
                                  ORDER BY p.nummer DESC LIMIT 1) running ON true
             WHERE n.status = 'verzonden' AND %s
            ON CONFLICT DO NOTHING
            """.formatted(NO_TASK);

    private static final String PLAN_FINALISE = """
            INSERT INTO taak (soort, dv_id, notificatie, due, trace_id)
            SELECT 'vaststellen', n.dv_id, n.id,
                   coalesce((SELECT max(p.ontvangst_completed_at) FROM poging p
                              WHERE p.notificatie = n.id AND p.status = 'bezorgd'), :now) + :margin::interval,
                   n.trace_id
              FROM notificatie n
             WHERE n.status = 'bezorgd' AND %s
            ON CONFLICT DO NOTHING
            """.formatted(NO_TASK);

    private static final String PLAN_RECEIPTS = """
            INSERT INTO taak (soort, dv_id, notificatie, poging, ontvangst, ontvangst_completed_at, due, trace_id)
            SELECT DISTINCT ON (o.poging) 'verwerken', n.dv_id, n.id, o.poging, o.id, o.completed_at, :now, n.trace_id
              FROM ontvangst o
              JOIN poging p ON p.id = o.poging
              JOIN notificatie n ON n.id = p.notificatie
             WHERE o.verwerkt_op IS NULL
               AND NOT EXISTS (SELECT 1 FROM taak t WHERE t.soort = 'verwerken' AND t.poging = o.poging)
             ORDER BY o.poging, o.completed_at NULLS LAST, o.id
            ON CONFLICT DO NOTHING
            """;

    private final Database database;
    private final Clock clock;
    private final Duration finaliseMargin;
    private final Duration interval;
    private final List<TaskWorker> workers;
    private final List<Runnable> maintenance;
    private final IntConsumer onRepaired;
    private volatile boolean running;
    private Thread loop;

    /**
     * @param finaliseMargin MEBV period plus callback window: a finalise task is due that long after delivery
     * @param maintenance    periodic upkeep run on the same beat (e.g. event-log partitions)
     */
    public Supervisor(Database database, Clock clock, Duration finaliseMargin, Duration interval,
                      List<TaskWorker> workers, List<Runnable> maintenance, IntConsumer onRepaired) {
        this.database = database;
        this.clock = clock;
        this.finaliseMargin = finaliseMargin;
        this.interval = interval;
        this.workers = workers;
        this.maintenance = List.copyOf(maintenance);
        this.onRepaired = onRepaired;
    }

    public synchronized void start() {
        running = true;
        loop = Thread.ofVirtual().name("nmc-supervisor").start(() -> {
            while (running) {
                try {
                    TimeUnit.MILLISECONDS.sleep(interval.toMillis());
                    if (repairOnce() > 0) {
                        workers.forEach(TaskWorker::nudge);
                    }
                    maintenance.forEach(Runnable::run);
                } catch (InterruptedException e) {
                    return;
                } catch (RuntimeException e) {
                    LOG.log(Level.WARNING, "control duty failed; trying again next interval", e);
                }
            }
        });
    }

    /** Plans every missing task now; returns how many it planned (each is logged: it means a step was lost). */
    public int repairOnce() {
        Instant now = clock.instant();
        // One short transaction per repair: a long write transaction would hold back the feed's watermark.
        int planned = database.inTransaction(connection -> Sql.on(connection, PLAN_SEND).bind("now", now).update())
                + database.inTransaction(connection -> Sql.on(connection, PLAN_AFTER_SENT).bind("now", now).update())
                + database.inTransaction(connection -> Sql.on(connection, PLAN_FINALISE).bind("now", now)
                        .bind("margin", finaliseMargin.toSeconds() + " seconds").update())
                + database.inTransaction(connection -> Sql.on(connection, PLAN_RECEIPTS).bind("now", now).update());
        if (planned > 0) {
            LOG.warning(() -> "control duty planned " + planned + " missing task(s)");
            onRepaired.accept(planned);
        }
        return planned;
    }

    @Override
    public void close() {
        running = false;
        if (loop != null) {
            loop.interrupt();
        }
    }
}
