package nl.overheid.moz.nmc.ratelimit;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.engine.Duty;

/**
 * The per-DV rate limits of the DV API's calls, per kind of call: at most a kind's limit in a second. The counter
 * is a row in the database (one statement, no other lock), so several NMC instances together allow what one
 * allows. Once an instance has counted a DV's calls of a kind over the limit, it refuses the rest of that second's
 * without a round trip ({@link #over}).
 *
 * <p>The acceptance quota limits what a DV has stored, shared and exact; but a call that stores nothing counts
 * against no quota. A bulk call therefore has a counter besides its quota (a maximal bulk call of repeats sent again
 * and again would otherwise be limited only by the concurrency caps), and a single acceptance that stored nothing —
 * a repeat, or a body refused — is counted after its answer ({@link Kind#REPEAT}): a new notification costs no
 * round trip here, and a DV that sends more calls in vain than the limit has its single acceptances refused, before
 * their bodies are read, for the rest of the second.
 */
public final class DvCalls implements Duty {

    /** The kinds of call counted apart (column {@code dvaanroep.soort}). */
    public enum Kind {
        /** reading and acknowledging the feed, the webhook's state and resume ({@code feed.rate-limit-per-second}) */
        FEED("feed"),
        /** a notification's status, the search by dvRef, a cancellation ({@code http.rate-limit-per-second}) */
        NOTIFICATIES("notificaties"),
        /** a bulk acceptance ({@code http.bulk-rate-limit-per-second}) */
        BULK("bulk"),
        /**
         * a single acceptance that stored no new notification: a repeat, or a body refused
         * ({@code http.repeat-rate-limit-per-second}); counted after its answer
         */
        REPEAT("herhaling");

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
    /*
     * The second in which this instance counted a DV's calls of a kind over their limit: at most one entry per DV and
     * kind, replaced, so it needs no clean-up.
     */
    private final Map<Over, Instant> over = new ConcurrentHashMap<>();

    private record Over(UUID dvId, Kind kind) {}

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
        OptionalLong refused = over(new Over(dvId, kind), now, window);
        if (refused.isPresent()) {
            return refused;
        }
        int count = database.inTransaction(tx -> calls.count(tx, dvId, kind.value(), window));
        if (count <= perSecond.get(kind)) {
            return OptionalLong.empty();
        }
        over.put(new Over(dvId, kind), window);
        return retryAfter(now, window);
    }

    /**
     * Without counting: empty unless this instance has counted the DV's calls of this kind over their limit in the
     * current second, else the seconds after which the caller may try again. Another instance's count is seen at this
     * instance's next {@link #take} of the kind: over all instances together at most the limit and one more call
     * per instance then (more only by the calls in progress on an instance at that moment).
     */
    public OptionalLong over(UUID dvId, Kind kind) {
        Instant now = clock.instant();
        return over(new Over(dvId, kind), now, now.truncatedTo(ChronoUnit.SECONDS));
    }

    private OptionalLong over(Over key, Instant now, Instant window) {
        return window.equals(over.get(key)) ? retryAfter(now, window) : OptionalLong.empty();
    }

    /** The rest of this second, rounded up. */
    private static OptionalLong retryAfter(Instant now, Instant window) {
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
