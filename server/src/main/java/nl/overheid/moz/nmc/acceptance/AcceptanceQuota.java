package nl.overheid.moz.nmc.acceptance;

import io.helidon.dbclient.DbExecute;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;

/**
 * A DV's quota of acceptances per minute (design §4), as counters per DV per second in the unlogged table
 * {@code aannameteller}. Taking slots is one call of the SQL function {@code aannamequotum_nemen}: it locks
 * the current second's counter, sums the DV's previous 59 seconds (at most 59 rows, whatever the rate) and
 * adds what the quota still allows. The counters are shared, so several instances together grant what one grants.
 *
 * <p>Where the take runs: a bulk chunk takes in autocommit ({@link #take}), so the counter's row lock lasts only
 * while the server runs that one call and nothing is locked across the chunk's long transaction. A group of single
 * requests takes as the first statement of its own transaction ({@link #takeIn}): one round trip fewer per group,
 * the slots go back with a rollback (those a repeat did not use after the commit, as a chunk's), and the lock lasts
 * until the group's commit — which serialises only what group commit already writes one at a time on an instance (a
 * DV's groups of one regime), plus the same DV's groups of the other regime and on other instances and its bulk
 * chunks' short takes, each waiting at most one group's transaction.
 *
 * <p>How exact: concurrent takes of one second serialise on that second's row and re-check the sum, so
 * each window of 60 whole seconds holds at most the quota, plus the takes in flight at a second's
 * boundary (a take that read its snapshot just before another instance's take of the previous second
 * committed), plus skew between the instances' clocks. A 60-second interval that does not start on a
 * whole second can hold up to one second's grants more. A slot is given back when the request turns out
 * to be a repeat or fails; one lost in a crash is never given back, which errs on the strict side, and a
 * crash of PostgreSQL empties the table, which errs by at most one minute of quota.
 */
public final class AcceptanceQuota implements Duty {

    static final Duration WINDOW = Duration.ofMinutes(1);

    private final Database database;
    private final QuotaRepository quota;
    private final Clock clock;

    public AcceptanceQuota(Database database, QuotaRepository quota, Clock clock) {
        this.database = database;
        this.quota = quota;
        this.clock = clock;
    }

    /** Slots taken in one second; what the acceptance did not use goes back with {@link #giveBack}. */
    public record Slots(UUID dvId, Instant second, int granted) {}

    /**
     * Takes up to {@code wanted} slots of the DV's quota.
     *
     * @return the slots granted: {@code wanted}, fewer, or none when the quota of the last minute is used up
     */
    public Slots take(UUID dvId, int quotaPerMinute, int wanted) {
        return database.autocommit(db -> takeIn(db, dvId, quotaPerMinute, wanted));
    }

    /**
     * {@link #take} as a statement of the caller's transaction: the counter's row stays locked until it ends, and a
     * rollback gives the slots back; what the committed transaction did not use goes back with {@link #giveBack}.
     */
    public Slots takeIn(DbExecute tx, UUID dvId, int quotaPerMinute, int wanted) {
        Instant second = clock.instant().truncatedTo(ChronoUnit.SECONDS);
        return new Slots(dvId, second, quota.take(tx, dvId, second, second.minus(WINDOW), quotaPerMinute, wanted));
    }

    /** Gives back slots the acceptance did not use: repeats, failures. */
    public void giveBack(Slots slots, int unused) {
        if (unused <= 0) {
            return;
        }
        database.autocommit(db -> quota.giveBack(db, slots.dvId(), slots.second(), unused));
    }

    /**
     * Whether the DV's quota of the last minute is used up, read without taking anything: a look before a bulk
     * submission's body is read, so a flood over the quota costs one read of the counters.
     */
    public boolean usedUp(UUID dvId, int quotaPerMinute) {
        Instant windowStart = clock.instant().truncatedTo(ChronoUnit.SECONDS).minus(WINDOW);
        return database.autocommit(db -> quota.used(db, dvId, windowStart)) >= quotaPerMinute;
    }

    /** How long until the oldest acceptance in the DV's window leaves it (at least one second). */
    public Duration retryAfter(UUID dvId) {
        Instant now = clock.instant();
        Instant windowStart = now.truncatedTo(ChronoUnit.SECONDS).minus(WINDOW);
        Optional<Instant> oldest = database.autocommit(db -> quota.oldest(db, dvId, windowStart));
        Instant freed = oldest.orElse(now).plus(WINDOW);
        long millis = Duration.between(now, freed).toMillis();
        return Duration.ofSeconds(Math.max(1, (millis + 999) / 1000));
    }

    @Override
    public String name() {
        return "acceptance quota counters";
    }

    /** Removes the counters of seconds that left every window; returns how many. */
    @Override
    public int runOnce() {
        Instant before = clock.instant().minus(WINDOW).minusSeconds(1);
        return Math.toIntExact(database.inTransaction(tx -> quota.forget(tx, before)));
    }
}
