package nl.overheid.moz.nmc.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.Statement;
import nl.overheid.moz.nmc.engine.Duty;

/**
 * Retention of the notifications (design §10), as a periodic duty in small batches, each its own short
 * transaction, within a time budget per run (the work is spread over time; a crash loses at most a batch's
 * progress, which the next run does again):
 * <ol>
 *   <li>a terminal notification that still has its data key but no erasure task gets one (rows from before
 *       erasure existed, or a task lost by hand), due its terminal time plus the erasure period;</li>
 *   <li>the erasure of a notification under a compromised pepper version is due at once;</li>
 *   <li>a notification terminal for longer than the delivery-proof retention is deleted with its attempts,
 *       receipts and tasks (the event log has the same retention, by partition:
 *       {@code maintenance/EventRetention}).</li>
 * </ol>
 */
public final class NotificatieRetention implements Duty {

    private static final Logger LOG = Logger.getLogger(NotificatieRetention.class.getName());

    private static final Statement ERASURE_PLAN_MISSING = Statement.named("erasurePlanMissing", """
            INSERT INTO taak (soort, dv_id, notificatie, due, trace_id)
            SELECT 'wissen', n.dv_id, n.id, n.terminaal_sinds + CAST(:eraseAfter AS interval), n.trace_id
              FROM notificatie n
             WHERE n.terminaal_sinds IS NOT NULL AND n.datasleutel_gewrapt IS NOT NULL
               AND NOT EXISTS (SELECT 1 FROM taak t WHERE t.notificatie = n.id AND t.soort = 'wissen')
             ORDER BY n.terminaal_sinds
             LIMIT :batch
            ON CONFLICT DO NOTHING
            """);

    private static final Statement ERASURE_BRING_FORWARD_COMPROMISED = Statement.named("erasureBringForwardCompromised", """
            UPDATE taak SET due = :now
             WHERE id IN (
                   SELECT t.id FROM taak t
                     JOIN notificatie n ON n.id = t.notificatie
                     JOIN pepper_gecompromitteerd p
                       ON (p.doel = 'dvref' AND n.pepper_versie = p.versie)
                       OR (p.doel = 'payload' AND n.payload_pepper_versie = p.versie)
                       OR (p.doel = 'ldv' AND n.ldv_pepper_versie = p.versie)
                    WHERE t.soort = 'wissen' AND t.status = 'open' AND t.due > :now
                      AND n.datasleutel_gewrapt IS NOT NULL
                    LIMIT :batch)
            """);

    private static final Statement NOTIFICATIE_DELETE_EXPIRED = Statement.named("notificatieDeleteExpired", """
            DELETE FROM notificatie WHERE id IN (
                SELECT id FROM notificatie WHERE terminaal_sinds < :cutoff
                 ORDER BY terminaal_sinds LIMIT :batch FOR UPDATE SKIP LOCKED)
            """);

    private final Database database;
    private final Clock clock;
    private final Duration eraseAfter;
    private final Period retention;
    private final int batchSize;
    private final Duration timeBudget;

    public NotificatieRetention(Database database, Clock clock, RetentionSettings settings) {
        this.database = database;
        this.clock = clock;
        this.eraseAfter = settings.eraseAfter();
        this.retention = settings.notifications();
        this.batchSize = settings.batchSize();
        this.timeBudget = settings.timeBudget();
    }

    @Override
    public String name() {
        return "notification retention";
    }

    @Override
    public int runOnce() {
        long deadline = System.nanoTime() + timeBudget.toNanos();
        long done = 0;
        long step;
        do {
            step = database.inTransaction(tx -> ERASURE_PLAN_MISSING.dml(tx).addParam("eraseAfter", eraseAfter)
                    .addParam("batch", batchSize).execute());
            done += step;
        } while (step == batchSize && System.nanoTime() < deadline);
        do {
            Instant now = clock.instant();
            step = database.inTransaction(tx -> ERASURE_BRING_FORWARD_COMPROMISED.dml(tx).addParam("now", now)
                    .addParam("batch", batchSize).execute());
            done += step;
        } while (step == batchSize && System.nanoTime() < deadline);
        long deleted = 0;
        do {
            Instant cutoff = clock.instant().atZone(ZoneOffset.UTC).minus(retention).toInstant();
            step = database.inTransaction(tx -> NOTIFICATIE_DELETE_EXPIRED.dml(tx).addParam("cutoff", cutoff)
                    .addParam("batch", batchSize).execute());
            deleted += step;
        } while (step == batchSize && System.nanoTime() < deadline);
        if (deleted > 0) {
            long total = deleted;
            LOG.info(() -> "retention deleted " + total + " notification(s) past the delivery-proof retention");
        }
        return Math.toIntExact(done + deleted);
    }
}
