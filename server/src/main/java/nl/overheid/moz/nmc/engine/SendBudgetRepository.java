package nl.overheid.moz.nmc.engine;

import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The SQL of the send budget's buckets ({@code verzendbudget}): one row per bucket per one-minute window. Which
 * bucket, which window and how many tokens are {@link SendBudget}'s rules.
 */
public final class SendBudgetRepository {

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

    private static final Statement BUDGET_FORGET =
            Statement.named("budgetForget", "DELETE FROM verzendbudget WHERE venster < :before");

    /* Never above the capacity: a window holds at most what it started with, whatever is given back. */
    private static final Statement BUDGET_RETURN = Statement.named("budgetReturn", """
            UPDATE verzendbudget SET resterend = least(resterend + :tokens, :capacity)
             WHERE notify_service = :service AND venster = :window
            """);

    private static final Statement BUDGET_WINDOW = Statement.named(
            "budgetWindow", "SELECT notify_service, resterend FROM verzendbudget WHERE venster = :window");

    /** Takes up to {@code want} tokens of the bucket's window, creating it with {@code capacity}; returns how many. */
    int take(DbTransaction tx, String bucket, Instant window, int capacity, int want) {
        return BUDGET_TAKE
                .get(tx)
                .addParam("service", bucket)
                .addParam("window", window)
                .addParam("capacity", capacity)
                .addParam("want", want)
                .execute()
                .map(row -> DbTypes.integer(row, "laatst_toegekend"))
                .orElseThrow();
    }

    /** Removes the windows that started before {@code before}; returns how many. */
    long forget(DbTransaction tx, Instant before) {
        return BUDGET_FORGET.dml(tx).addParam("before", before).execute();
    }

    /** Puts {@code tokens} back into the bucket's window, never above {@code capacity}. */
    void giveBack(DbTransaction tx, String bucket, Instant window, int tokens, int capacity) {
        BUDGET_RETURN
                .dml(tx)
                .addParam("tokens", tokens)
                .addParam("capacity", capacity)
                .addParam("service", bucket)
                .addParam("window", window)
                .execute();
    }

    /** The tokens left in every bucket that has the window, by bucket. */
    Map<String, Integer> remaining(DbTransaction tx, Instant window) {
        Map<String, Integer> remaining = new HashMap<>();
        BUDGET_WINDOW
                .query(tx)
                .addParam("window", window)
                .execute()
                .forEach(row -> remaining.put(DbTypes.text(row, "notify_service"), DbTypes.integer(row, "resterend")));
        return remaining;
    }
}
