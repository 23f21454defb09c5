package nl.overheid.moz.nmc.feed;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.OptionalLong;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;

/**
 * The per-DV rate limit of the feed calls (reading, acknowledging, the webhook's state and resume): at most
 * {@code perSecond} calls in a second. The counter is a row in the database (one statement, no other lock),
 * so several NMC instances together allow what one allows.
 */
public final class FeedCalls implements Duty {

    private final Database database;
    private final FeedCallRepository calls;
    private final Clock clock;
    private final int perSecond;

    public FeedCalls(Database database, FeedCallRepository calls, Clock clock, int perSecond) {
        if (perSecond < 1) {
            throw new IllegalArgumentException("feed.rate-limit-per-second must be at least 1");
        }
        this.database = database;
        this.calls = calls;
        this.clock = clock;
        this.perSecond = perSecond;
    }

    /**
     * Counts a call of the DV; empty when it is within the limit, else the seconds after which the caller
     * may try again (the rest of this second, rounded up).
     */
    public OptionalLong take(UUID dvId) {
        Instant now = clock.instant();
        Instant window = now.truncatedTo(ChronoUnit.SECONDS);
        int count = database.inTransaction(tx -> calls.count(tx, dvId, window));
        if (count <= perSecond) {
            return OptionalLong.empty();
        }
        long millisLeft = Duration.between(now, window.plusSeconds(1)).toMillis();
        return OptionalLong.of(Math.max(1, (millisLeft + 999) / 1000));
    }

    @Override
    public String name() {
        return "feed call counters";
    }

    /** Removes the counters of past seconds; returns how many. */
    @Override
    public int runOnce() {
        Instant before = clock.instant().minusSeconds(60);
        return Math.toIntExact(database.inTransaction(tx -> calls.forget(tx, before)));
    }
}
