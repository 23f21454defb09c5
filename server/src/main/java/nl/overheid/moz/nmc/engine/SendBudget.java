package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * The send budget (design §6): a token bucket per budget key per one-minute window, in the database, so several
 * NMC instances together never take more than one would. The first take in a window creates it; unused tokens
 * expire with the window; there is no refiller and no other lock. Reconciliation has a fixed share of every
 * window (at least one token), a bucket of its own, so sending can never starve it.
 *
 * <p>A bucket can be <em>closed</em> until a moment ({@link #close}): its claims take no tokens until then, so the
 * engine does not keep knocking at a party that said no more today (the NMC's planner closes a NotifyNL service's
 * sending share when its daily limit is used up). Why it is closed is the closer's business; the engine only honours
 * it, in the same one statement that takes the tokens.
 *
 * <p>A key is opaque here: the wiring gives each key its limit per minute (the NMC's keys are its NotifyNL
 * services), and the planner of a task names the key it spends ({@code taak.budget}). A key without a limit
 * gets no tokens: its tasks wait, and are never sent with a limit nobody configured.
 */
public final class SendBudget {

    private static final Logger LOG = Logger.getLogger(SendBudget.class.getName());

    private final SendBudgetRepository buckets;
    private final Map<String, Integer> perMinute;
    private final double reconcileShare;
    private final Set<String> warnedUnknown = ConcurrentHashMap.newKeySet();

    /**
     * @param perMinute      the limit per minute of every budget key (the NMC's: NotifyNL's rate limit per
     *                       service, 3,000 a minute unless agreed otherwise)
     * @param reconcileShare the fraction of every window reserved for reconciliation
     */
    public SendBudget(SendBudgetRepository buckets, Map<String, Integer> perMinute, double reconcileShare) {
        if (reconcileShare < 0 || reconcileShare >= 1) {
            throw new IllegalArgumentException("invalid reconcile share " + reconcileShare);
        }
        perMinute.forEach((key, limit) -> {
            if (key == null || key.isBlank() || limit == null || limit < 2) {
                throw new IllegalArgumentException("invalid send budget " + key + ": " + limit
                        + " a minute (at least 2:" + " one token a window is reconciliation's)");
            }
        });
        this.buckets = buckets;
        this.perMinute = Map.copyOf(new TreeMap<>(perMinute));
        this.reconcileShare = reconcileShare;
    }

    /** The budget keys that have a limit. */
    public Set<String> keys() {
        return perMinute.keySet();
    }

    /**
     * Tokens per window of {@code key} for {@code purpose}; 0 for an unknown key. Reconciliation gets its fixed
     * share, rounded down, but never less than one token a window: a small limit must not round it to nothing and
     * leave the key's verzonden notifications unreconciled for ever.
     */
    int capacity(String key, TaskHandler.Budget purpose) {
        Integer limit = perMinute.get(key);
        if (limit == null) {
            return 0;
        }
        int reconcile = Math.max(1, (int) Math.floor(limit * reconcileShare));
        return switch (purpose) {
            case SENDING -> limit - reconcile;
            case RECONCILING -> reconcile;
            case NONE -> 0;
        };
    }

    /** Removes the windows that ended before {@code before} (they can no longer be taken from). */
    public long budgetForget(DbTransaction tx, Instant before) {
        return buckets.forget(tx, before);
    }

    /** Takes up to {@code want} tokens of {@code key}'s share for {@code purpose} in the current window; returns how many it got. */
    public int budgetTake(DbTransaction tx, String key, TaskHandler.Budget purpose, int want, Instant now) {
        if (want <= 0 || purpose == TaskHandler.Budget.NONE) {
            return 0;
        }
        if (!perMinute.containsKey(key)) {
            if (warnedUnknown.add(String.valueOf(key))) {
                LOG.warning(() -> "send budget " + key + " has no limit configured: its tasks wait until it has one"
                        + " (known: " + perMinute.keySet() + ")");
            }
            return 0;
        }
        int capacity = capacity(key, purpose);
        if (capacity == 0) {
            return 0;
        }
        return buckets.take(tx, bucket(key, purpose), window(now), capacity, want, now);
    }

    /**
     * Closes {@code key}'s share for {@code purpose} until {@code until}: no claim takes its tokens before then (a
     * later closure wins). {@code reason} is a short class, never personal data.
     */
    public void close(
            DbTransaction tx, String key, TaskHandler.Budget purpose, Instant until, Instant now, String reason) {
        if (purpose != TaskHandler.Budget.NONE && until.isAfter(now)) {
            buckets.close(tx, bucket(key, purpose), until, now, reason);
        }
    }

    /** Until when {@code key}'s share for {@code purpose} is closed, if it is at {@code now}. */
    public java.util.Optional<Instant> closedUntil(
            DbTransaction tx, String key, TaskHandler.Budget purpose, Instant now) {
        return purpose == TaskHandler.Budget.NONE
                ? java.util.Optional.empty()
                : buckets.closedUntil(tx, bucket(key, purpose), now);
    }

    /** A closed share: its bucket ({@code <key>/<purpose>}), until when, and why. */
    public record Closure(String bucket, Instant until, String reason) {

        /** The budget key of the bucket. */
        public String key() {
            return bucket.substring(0, bucket.lastIndexOf('/'));
        }
    }

    /** The shares closed at {@code now} (for the operators' gauges). */
    public List<Closure> closures(DbTransaction tx, Instant now) {
        return buckets.closures(tx, now);
    }

    /** Removes the closures that ended before {@code before}. */
    public long forgetClosures(DbTransaction tx, Instant before) {
        return buckets.forgetClosures(tx, before);
    }

    /**
     * Gives back tokens taken in the window of {@code takenAt} that no call used (a claim found fewer tasks than
     * it counted, or a task ended without calling). Only while that window is the current one: a past window's
     * tokens have expired, and putting them into a later window would let it exceed its limit.
     */
    public void budgetReturn(
            DbTransaction tx, String key, TaskHandler.Budget purpose, int tokens, Instant takenAt, Instant now) {
        if (tokens > 0
                && purpose != TaskHandler.Budget.NONE
                && perMinute.containsKey(key)
                && window(takenAt).equals(window(now))) {
            buckets.giveBack(tx, bucket(key, purpose), window(now), tokens, capacity(key, purpose));
        }
    }

    /** One bucket per key and purpose, so reconciliation's share is its own. */
    /** One budget's share in one window: its tokens and how many are taken (given-back ones not counted). */
    public record WindowUse(String key, TaskHandler.Budget purpose, int capacity, int taken) {}

    /** The use of every configured budget and share in the window of {@code moment} (for the operators' gauges). */
    public List<WindowUse> windowUse(DbTransaction tx, Instant moment) {
        Map<String, Integer> remaining = buckets.remaining(tx, window(moment));
        List<WindowUse> use = new java.util.ArrayList<>();
        for (String key : new java.util.TreeSet<>(perMinute.keySet())) {
            for (TaskHandler.Budget purpose : List.of(TaskHandler.Budget.SENDING, TaskHandler.Budget.RECONCILING)) {
                int capacity = capacity(key, purpose);
                use.add(new WindowUse(
                        key, purpose, capacity, capacity - remaining.getOrDefault(bucket(key, purpose), capacity)));
            }
        }
        return use;
    }

    static String bucket(String key, TaskHandler.Budget purpose) {
        return key + "/" + purpose.name().toLowerCase(Locale.ROOT);
    }

    static Instant window(Instant now) {
        return now.truncatedTo(ChronoUnit.MINUTES);
    }
}
