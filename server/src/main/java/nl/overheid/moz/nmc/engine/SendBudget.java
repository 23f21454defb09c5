package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Locale;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The send budget (design §6): a token bucket per budget key per one-minute window, in the database, so several
 * NMC instances together never take more than one would. The first take in a window creates it; unused tokens
 * expire with the window; there is no refiller and no other lock. Reconciliation has a fixed share of every
 * window, a bucket of its own, so sending can never starve it.
 *
 * <p>A key is opaque here: the wiring gives each key its limit per minute (the NMC's keys are its NotifyNL
 * services), and the planner of a task names the key it spends ({@code taak.budget}). A key without a limit
 * gets no tokens: its tasks wait, and are never sent with a limit nobody configured.
 */
public final class SendBudget {

    private static final Logger LOG = Logger.getLogger(SendBudget.class.getName());

    /*
     * One statement. In SET, b.resterend is the value before this take, so laatst_toegekend records exactly
     * what this take got even when other takes run at the same time (they serialise on the row).
     */
    private static final Statement BUDGET_TAKE = Statement.named("budgetTake", """
            INSERT INTO verzendbudget AS b (notify_service, venster, resterend, laatst_toegekend)
            VALUES (:service, :window, greatest(:capacity - :want, 0), least(:want, :capacity))
            ON CONFLICT (notify_service, venster) DO UPDATE
               SET resterend = greatest(b.resterend - :want, 0),
                   laatst_toegekend = least(b.resterend, :want)
            RETURNING laatst_toegekend
            """);

    private static final Statement BUDGET_FORGET = Statement.named("budgetForget",
            "DELETE FROM verzendbudget WHERE venster < :before");

    /* Never above the capacity: a window holds at most what it started with, whatever is given back. */
    private static final Statement BUDGET_RETURN = Statement.named("budgetReturn", """
            UPDATE verzendbudget SET resterend = least(resterend + :tokens, :capacity)
             WHERE notify_service = :service AND venster = :window
            """);

    private static final Statement BUDGET_WINDOW = Statement.named("budgetWindow",
            "SELECT notify_service, resterend FROM verzendbudget WHERE venster = :window");

    private final Map<String, Integer> perMinute;
    private final double reconcileShare;
    private final Set<String> warnedUnknown = ConcurrentHashMap.newKeySet();

    /**
     * @param perMinute      the limit per minute of every budget key (the NMC's: NotifyNL's rate limit per
     *                       service, 3,000 a minute unless agreed otherwise)
     * @param reconcileShare the fraction of every window reserved for reconciliation
     */
    public SendBudget(Map<String, Integer> perMinute, double reconcileShare) {
        if (reconcileShare < 0 || reconcileShare >= 1) {
            throw new IllegalArgumentException("invalid reconcile share " + reconcileShare);
        }
        perMinute.forEach((key, limit) -> {
            if (key == null || key.isBlank() || limit == null || limit <= 0) {
                throw new IllegalArgumentException("invalid send budget " + key + ": " + limit + " a minute");
            }
        });
        this.perMinute = Map.copyOf(new TreeMap<>(perMinute));
        this.reconcileShare = reconcileShare;
    }

    /** The budget keys that have a limit. */
    public Set<String> keys() {
        return perMinute.keySet();
    }

    /** Tokens per window of {@code key} for {@code purpose} (reconciliation a fixed share); 0 for an unknown key. */
    int capacity(String key, TaskHandler.Budget purpose) {
        Integer limit = perMinute.get(key);
        if (limit == null) {
            return 0;
        }
        int reconcile = (int) Math.floor(limit * reconcileShare);
        return switch (purpose) {
            case SENDING -> limit - reconcile;
            case RECONCILING -> reconcile;
            case NONE -> 0;
        };
    }

    /** Removes the windows that ended before {@code before} (they can no longer be taken from). */
    public long budgetForget(DbTransaction tx, Instant before) {
        return BUDGET_FORGET.dml(tx).addParam("before", before).execute();
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
        return BUDGET_TAKE.get(tx).addParam("service", bucket(key, purpose)).addParam("window", window(now))
                .addParam("capacity", capacity).addParam("want", want).execute()
                .map(row -> DbTypes.integer(row, "laatst_toegekend")).orElseThrow();
    }

    /**
     * Gives back tokens taken in the window of {@code takenAt} that no call used (a claim found fewer tasks than
     * it counted, or a task ended without calling). Only while that window is the current one: a past window's
     * tokens have expired, and putting them into a later window would let it exceed its limit.
     */
    public void budgetReturn(DbTransaction tx, String key, TaskHandler.Budget purpose, int tokens, Instant takenAt,
                             Instant now) {
        if (tokens > 0 && purpose != TaskHandler.Budget.NONE && perMinute.containsKey(key)
                && window(takenAt).equals(window(now))) {
            BUDGET_RETURN.dml(tx).addParam("tokens", tokens).addParam("capacity", capacity(key, purpose))
                    .addParam("service", bucket(key, purpose)).addParam("window", window(now)).execute();
        }
    }

    /** One bucket per key and purpose, so reconciliation's share is its own. */
    /** One budget's share in one window: its tokens and how many are taken (given-back ones not counted). */
    public record WindowUse(String key, TaskHandler.Budget purpose, int capacity, int taken) {
    }

    /** The use of every configured budget and share in the window of {@code moment} (for the operators' gauges). */
    public List<WindowUse> windowUse(DbTransaction tx, Instant moment) {
        Map<String, Integer> remaining = new java.util.HashMap<>();
        BUDGET_WINDOW.query(tx).addParam("window", window(moment)).execute()
                .forEach(row -> remaining.put(DbTypes.text(row, "notify_service"), DbTypes.integer(row, "resterend")));
        List<WindowUse> use = new java.util.ArrayList<>();
        for (String key : new java.util.TreeSet<>(perMinute.keySet())) {
            for (TaskHandler.Budget purpose : List.of(TaskHandler.Budget.SENDING, TaskHandler.Budget.RECONCILING)) {
                int capacity = capacity(key, purpose);
                use.add(new WindowUse(key, purpose, capacity,
                        capacity - remaining.getOrDefault(bucket(key, purpose), capacity)));
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
