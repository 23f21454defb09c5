package nl.overheid.moz.nmc.retention;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.Period;
import java.time.ZoneOffset;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;

/**
 * Retention of the notifications (design §10), as a periodic duty in small batches, each its own short
 * transaction, within a time budget per run (the work is spread over time; a crash loses at most a batch's
 * progress, which the next run does again):
 * <ol>
 *   <li>a terminal notification whose erasure is due — its terminal time plus the erasure period has come — gets
 *       its erasure task, due at that moment: the timer is the notification's own terminal time, and the task row
 *       exists only from then on, at most a round of this duty late ({@code engine.control-interval});</li>
 *   <li>a terminal notification under a compromised pepper version gets its erasure task due at once;</li>
 *   <li>a notification terminal for longer than the delivery-proof retention is deleted with its attempts,
 *       receipts and tasks (the event log has the same retention, by partition:
 *       {@code maintenance/EventRetention}).</li>
 * </ol>
 */
public final class NotificatieRetention implements Duty {

    private static final Logger LOG = Logger.getLogger(NotificatieRetention.class.getName());

    private final Database database;
    private final RetentionRepository repository;
    private final Clock clock;
    private final Duration eraseAfter;
    private final Period retention;
    private final int batchSize;
    private final Duration timeBudget;

    public NotificatieRetention(
            Database database, RetentionRepository repository, Clock clock, RetentionSettings settings) {
        this.database = database;
        this.repository = repository;
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
            Instant now = clock.instant();
            step = database.inTransaction(tx -> repository.planDueErasures(tx, now, eraseAfter, batchSize));
            done += step;
        } while (step == batchSize && System.nanoTime() < deadline);
        do {
            Instant now = clock.instant();
            step = database.inTransaction(tx -> repository.planCompromisedErasures(tx, now, batchSize));
            done += step;
        } while (step == batchSize && System.nanoTime() < deadline);
        long deleted = 0;
        do {
            Instant cutoff =
                    clock.instant().atZone(ZoneOffset.UTC).minus(retention).toInstant();
            step = database.inTransaction(tx -> repository.deleteExpired(tx, cutoff, batchSize));
            deleted += step;
        } while (step == batchSize && System.nanoTime() < deadline);
        if (deleted > 0) {
            long total = deleted;
            LOG.info(() -> "retention deleted " + total + " notification(s) past the delivery-proof retention");
        }
        return Math.toIntExact(done + deleted);
    }
}
