package nl.overheid.moz.nmc.acceptance;

import io.helidon.dbclient.DbExecute;
import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The SQL of the acceptance quota's counters ({@code aannameteller}, and the function
 * {@code aannamequotum_nemen} that takes from them). The rules and the concurrency contract are
 * {@link AcceptanceQuota}'s.
 */
public final class QuotaRepository {

    private static final Statement TAKE = Statement.named("acceptanceQuotaTake", """
            SELECT aannamequotum_nemen(:dvId, :second, :windowStart, :quota, :wanted) AS toegekend
            """);

    private static final Statement GIVE_BACK = Statement.named("acceptanceQuotaGiveBack", """
            UPDATE aannameteller SET aantal = GREATEST(0, aantal - :unused)
             WHERE dv_id = :dvId AND tijdvak = :second
            """);

    /* Only on a refusal: when the oldest grant still in the window leaves it. */
    private static final Statement OLDEST = Statement.named("acceptanceQuotaOldest", """
            SELECT MIN(tijdvak) AS oudste FROM aannameteller
             WHERE dv_id = :dvId AND tijdvak > :windowStart AND aantal > 0
            """);

    /* Before a bulk submission is read: what the DV took in the window, this second included. */
    private static final Statement USED = Statement.named("acceptanceQuotaUsed", """
            SELECT COALESCE(SUM(aantal), 0) AS gebruikt FROM aannameteller
             WHERE dv_id = :dvId AND tijdvak > :windowStart
            """);

    private static final Statement FORGET =
            Statement.named("acceptanceQuotaForget", "DELETE FROM aannameteller WHERE tijdvak <= :before");

    /** Takes up to {@code wanted} slots in {@code second}, with what the window since {@code windowStart} allows. */
    int take(DbExecute db, UUID dvId, Instant second, Instant windowStart, int quota, int wanted) {
        return TAKE.get(db)
                .addParam("dvId", dvId)
                .addParam("second", second)
                .addParam("windowStart", windowStart)
                .addParam("quota", quota)
                .addParam("wanted", wanted)
                .execute()
                .map(row -> DbTypes.integer(row, "toegekend"))
                .orElseThrow();
    }

    /** Gives {@code unused} slots back to the counter of {@code second} (never below zero). */
    long giveBack(DbExecute db, UUID dvId, Instant second, int unused) {
        return GIVE_BACK
                .dml(db)
                .addParam("dvId", dvId)
                .addParam("second", second)
                .addParam("unused", unused)
                .execute();
    }

    /** The oldest second after {@code windowStart} with a grant. */
    Optional<Instant> oldest(DbExecute db, UUID dvId, Instant windowStart) {
        return OLDEST.get(db)
                .addParam("dvId", dvId)
                .addParam("windowStart", windowStart)
                .execute()
                .map(row -> DbTypes.instant(row, "oudste"));
    }

    /** The slots taken after {@code windowStart}. */
    long used(DbExecute db, UUID dvId, Instant windowStart) {
        return USED.get(db)
                .addParam("dvId", dvId)
                .addParam("windowStart", windowStart)
                .execute()
                .map(row -> row.column("gebruikt").getLong())
                .orElse(0L);
    }

    /** Removes the counters of seconds up to {@code before}; returns how many. */
    long forget(DbTransaction tx, Instant before) {
        return FORGET.dml(tx).addParam("before", before).execute();
    }
}
