package nl.overheid.moz.nmc.feed;

import io.helidon.dbclient.DbTransaction;
import java.time.Instant;
import java.util.UUID;
import nl.overheid.moz.nmc.db.DbTypes;
import nl.overheid.moz.nmc.db.Statement;

/** The SQL of the feed calls' counters ({@code feedaanroep}): one row per DV per second. */
public final class FeedCallRepository {

    private static final Statement FEED_CALL_COUNT = Statement.named("feedCallCount", """
            INSERT INTO feedaanroep (dv_id, tijdvak, aantal) VALUES (:dvId, :window, 1)
            ON CONFLICT (dv_id, tijdvak) DO UPDATE SET aantal = feedaanroep.aantal + 1
            RETURNING aantal
            """);

    private static final Statement FEED_CALL_FORGET =
            Statement.named("feedCallForget", "DELETE FROM feedaanroep WHERE tijdvak < :before");

    /** Counts a call of the DV in {@code window}; returns the window's count with it. */
    int count(DbTransaction tx, UUID dvId, Instant window) {
        return FEED_CALL_COUNT
                .get(tx)
                .addParam("dvId", dvId)
                .addParam("window", window)
                .execute()
                .map(row -> DbTypes.integer(row, "aantal"))
                .orElseThrow();
    }

    /** Removes the counters of the seconds before {@code before}; returns how many. */
    long forget(DbTransaction tx, Instant before) {
        return FEED_CALL_FORGET.dml(tx).addParam("before", before).execute();
    }
}
