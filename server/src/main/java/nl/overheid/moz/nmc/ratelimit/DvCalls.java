package nl.overheid.moz.nmc.ratelimit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;

/**
 * The per-DV rate limits of the DV API's calls, per kind of call: at most a kind's limit in a second. The counter
 * is a row in the database (one statement, no other lock), so several NMC instances together allow what one
 * allows. A single acceptance has no counter here: the acceptance quota is its limit, as shared and as exact. A bulk
 * call has one besides its quota: its repeats count against no quota, and a maximal bulk call sent again and again
 * would otherwise be limited only by the concurrency caps.
 */
public final class DvCalls implements Duty {

    /** The kinds of call counted apart (column {@code dvaanroep.soort}). */
    public enum Kind {
        /** reading and acknowledging the feed, the webhook's state and resume ({@code feed.rate-limit-per-second}) */
        FEED("feed"),
        /** a notification's status, the search by dvRef, a cancellation ({@code http.rate-limit-per-second}) */
        NOTIFICATIES("notificaties"),
        /** a bulk acceptance ({@code http.bulk-rate-limit-per-second}) */
        BULK("bulk");

        private final String value;

        Kind(String value) {
            this.value = value;
        }

        String value() {
            return value;
        }
    }

    private final Database database;
    private final DvCallRepository calls;
    private final Clock clock;
    private final Map<Kind, Integer> perSecond;

    public DvCalls(Database database, DvCallRepository calls, Clock clock, Map<Kind, Integer> perSecond) {
        for (Kind kind : Kind.values()) {
            if (perSecond.getOrDefault(kind, 0) < 1) {
                throw new IllegalArgumentException("the rate limit of " + kind.value() + " calls must be at least 1");
            }
        }
        this.database = database;
        this.calls = calls;
        this.clock = clock;
        this.perSecond = Map.copyOf(perSecond);
    }

    /**
     * Counts a call of the DV; empty when it is within the kind's limit, else the seconds after which the caller
     * may try again (the rest of this second, rounded up).
     */
    public OptionalLong take(UUID dvId, Kind kind) {
        Instant now = clock.instant();
        Instant window = now.truncatedTo(ChronoUnit.SECONDS);
        int count = database.inTransaction(tx -> calls.count(tx, dvId, kind.value(), window));
        if (count <= perSecond.get(kind)) {
            return OptionalLong.empty();
        }
        long millisLeft = Duration.between(now, window.plusSeconds(1)).toMillis();
        return OptionalLong.of(Math.max(1, (millisLeft + 999) / 1000));
    }

    @Override
    public String name() {
        return "DV call counters";
    }

    /** Removes the counters of past seconds; returns how many. */
    @Override
    public int runOnce() {
        Instant before = clock.instant().minusSeconds(60);
        return Math.toIntExact(database.inTransaction(tx -> calls.forget(tx, before)));
    }
}
