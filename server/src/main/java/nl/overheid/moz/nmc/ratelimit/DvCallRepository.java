package nl.overheid.moz.nmc.ratelimit;

import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/** The SQL of the DV calls' counters ({@code dvaanroep}): one row per DV, kind of call and second. */
public final class DvCallRepository {

    private static final Statement DV_CALL_COUNT = Statement.named("dvCallCount", """
            INSERT INTO dvaanroep (dv_id, soort, tijdvak, aantal) VALUES (:dvId, :soort, :window, 1)
            ON CONFLICT (dv_id, soort, tijdvak) DO UPDATE SET aantal = dvaanroep.aantal + 1
            RETURNING aantal
            """);

    private static final Statement DV_CALL_FORGET =
            Statement.named("dvCallForget", "DELETE FROM dvaanroep WHERE tijdvak < :before");

    /** Counts a call of the DV of this kind in {@code window}; returns the window's count with it. */
    int count(DbTransaction tx, UUID dvId, String kind, Instant window) {
        return DV_CALL_COUNT
                .get(tx)
                .addParam("dvId", dvId)
                .addParam("soort", kind)
                .addParam("window", window)
                .execute()
                .map(row -> DbTypes.integer(row, "aantal"))
                .orElseThrow();
    }

    /** Removes the counters of the seconds before {@code before}; returns how many. */
    long forget(DbTransaction tx, Instant before) {
        return DV_CALL_FORGET.dml(tx).addParam("before", before).execute();
    }
}
