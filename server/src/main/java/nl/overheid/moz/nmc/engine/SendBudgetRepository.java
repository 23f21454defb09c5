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
    /*
     * A closed bucket (verzendbudget_sluiting) inserts nothing and so returns no row: no tokens, and no window is
     * created for it. Still one statement.
     */
    private static final Statement BUDGET_TAKE = Statement.named("budgetTake", """
            INSERT INTO verzendbudget AS b (notify_service, venster, resterend, laatst_toegekend)
            SELECT :service, :window, greatest(:capacity - :want, 0), least(:want, :capacity)
             WHERE NOT EXISTS (SELECT 1 FROM verzendbudget_sluiting s
                                WHERE s.budget = :service AND s.gesloten_tot > :now)
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

    /* A closure only ever lengthens: two instances closing at once keep the later end. */
    private static final Statement BUDGET_CLOSE = Statement.named("budgetClose", """
            INSERT INTO verzendbudget_sluiting AS s (budget, gesloten_tot, gesloten_op, reden)
            VALUES (:service, :until, :now, :reason)
            ON CONFLICT (budget) DO UPDATE
               SET gesloten_tot = greatest(s.gesloten_tot, EXCLUDED.gesloten_tot),
                   gesloten_op = EXCLUDED.gesloten_op, reden = EXCLUDED.reden
            """);

    private static final Statement BUDGET_CLOSED_UNTIL = Statement.named("budgetClosedUntil", """
            SELECT gesloten_tot FROM verzendbudget_sluiting WHERE budget = :service AND gesloten_tot > :now
            """);

    private static final Statement BUDGET_CLOSURES = Statement.named("budgetClosures", """
            SELECT budget, gesloten_tot, reden FROM verzendbudget_sluiting WHERE gesloten_tot > :now
            """);

    private static final Statement BUDGET_FORGET_CLOSURES =
            Statement.named("budgetForgetClosures", "DELETE FROM verzendbudget_sluiting WHERE gesloten_tot < :before");

    private static final Statement BUDGET_WINDOW = Statement.named(
            "budgetWindow", "SELECT notify_service, resterend FROM verzendbudget WHERE venster = :window");

    /**
     * Takes up to {@code want} tokens of the bucket's window, creating it with {@code capacity}; returns how many (0
     * while the bucket is closed at {@code now}).
     */
    int take(DbTransaction tx, String bucket, Instant window, int capacity, int want, Instant now) {
        return BUDGET_TAKE
                .get(tx)
                .addParam("service", bucket)
                .addParam("window", window)
                .addParam("capacity", capacity)
                .addParam("want", want)
                .addParam("now", now)
                .execute()
                .map(row -> DbTypes.integer(row, "laatst_toegekend"))
                .orElse(0);
    }

    /** Closes the bucket until {@code until} (or keeps a later end). */
    void close(DbTransaction tx, String bucket, Instant until, Instant now, String reason) {
        BUDGET_CLOSE
                .dml(tx)
                .addParam("service", bucket)
                .addParam("until", until)
                .addParam("now", now)
                .addParam("reason", reason)
                .execute();
    }

    /** Until when the bucket is closed, if it is at {@code now}. */
    java.util.Optional<Instant> closedUntil(DbTransaction tx, String bucket, Instant now) {
        return BUDGET_CLOSED_UNTIL
                .get(tx)
                .addParam("service", bucket)
                .addParam("now", now)
                .execute()
                .map(row -> DbTypes.instant(row, "gesloten_tot"));
    }

    /** Every bucket closed at {@code now}, with its end and reason. */
    java.util.List<SendBudget.Closure> closures(DbTransaction tx, Instant now) {
        return BUDGET_CLOSURES
                .query(tx)
                .addParam("now", now)
                .execute()
                .map(row -> new SendBudget.Closure(
                        DbTypes.text(row, "budget"), DbTypes.instant(row, "gesloten_tot"), DbTypes.text(row, "reden")))
                .toList();
    }

    /** Removes the closures that ended before {@code before}; returns how many. */
    long forgetClosures(DbTransaction tx, Instant before) {
        return BUDGET_FORGET_CLOSURES.dml(tx).addParam("before", before).execute();
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
