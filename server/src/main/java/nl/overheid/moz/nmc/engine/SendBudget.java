package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The send budget: a token bucket per NotifyNL service per one-minute window (design §6). The first take
 * in a window creates it; unused tokens expire with the window; there is no refiller and no other lock.
 * Reconciliation has a fixed share of every window, so sending can never starve it.
 */
public final class SendBudget {

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

    private static final Statement BUDGET_RETURN = Statement.named("budgetReturn", """
            UPDATE verzendbudget SET resterend = resterend + :tokens
             WHERE notify_service = :service AND venster = :window
            """);

    private final int sendCapacity;
    private final int reconcileCapacity;

    /**
     * @param perMinute         NotifyNL's rate limit per service (3,000 a minute)
     * @param reconcileShare    the fraction of every window reserved for reconciliation
     */
    public SendBudget(int perMinute, double reconcileShare) {
        if (perMinute <= 0 || reconcileShare < 0 || reconcileShare >= 1) {
            throw new IllegalArgumentException("invalid send budget " + perMinute + "/" + reconcileShare);
        }
        this.reconcileCapacity = (int) Math.floor(perMinute * reconcileShare);
        this.sendCapacity = perMinute - reconcileCapacity;
    }

    /** Tokens per window for sending and for reconciliation (the latter a fixed share). */
    int sendCapacity() {
        return sendCapacity;
    }

    int reconcileCapacity() {
        return reconcileCapacity;
    }

    /** Takes up to {@code want} send tokens in the current window; returns how many it got. */
    /** Removes the windows that ended before {@code before} (they can no longer be taken from). */
    public long budgetForget(DbTransaction tx, Instant before) {
        return BUDGET_FORGET.dml(tx).addParam("before", before).execute();
    }

    public int budgetTakeForSending(DbTransaction tx, String service, int want, Instant now) {
        return take(tx, service, TaskHandler.Budget.SENDING, sendCapacity, want, now);
    }

    /** Takes up to {@code want} tokens from reconciliation's share of the current window. */
    public int budgetTakeForReconciling(DbTransaction tx, String service, int want, Instant now) {
        return take(tx, service, TaskHandler.Budget.RECONCILING, reconcileCapacity, want, now);
    }

    /** Gives back tokens a claim could not use (fewer tasks were claimable than counted). */
    public void budgetReturn(DbTransaction tx, String service, TaskHandler.Budget purpose, int tokens,
                             Instant now) {
        if (tokens > 0) {
            BUDGET_RETURN.dml(tx).addParam("tokens", tokens).addParam("service", key(service, purpose))
                    .addParam("window", window(now)).execute();
        }
    }

    private int take(DbTransaction tx, String service, TaskHandler.Budget purpose, int capacity, int want,
                     Instant now) {
        if (want <= 0) {
            return 0;
        }
        return BUDGET_TAKE.get(tx).addParam("service", key(service, purpose)).addParam("window", window(now))
                .addParam("capacity", capacity).addParam("want", want).execute()
                .map(row -> DbTypes.integer(row, "laatst_toegekend")).orElseThrow();
    }

    /** One bucket per NotifyNL service and purpose, so reconciliation's share is its own. */
    private static String key(String service, TaskHandler.Budget purpose) {
        return service + "/" + purpose.name().toLowerCase(java.util.Locale.ROOT);
    }

    static Instant window(Instant now) {
        return now.truncatedTo(ChronoUnit.MINUTES);
    }
}
