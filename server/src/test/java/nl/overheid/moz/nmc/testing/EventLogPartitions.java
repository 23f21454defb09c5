package nl.overheid.moz.nmc.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Surgery on the event log's partitions for tests, so that a test gets a partition below the visibility
 * watermark without waiting for millions of transaction ids. Only for a database of its own ({@link
 * TestDatabase#separate()}): it changes the partitions every other test of that database sees.
 */
public final class EventLogPartitions {

    private EventLogPartitions() {}

    /**
     * One range partition from 0 to well above the current transaction id, as V1 makes it, and no events; and no
     * floor on the drops (V34), whose tests move an injected clock by months past events the database stamped now.
     */
    public static void reset(TestDatabase database) {
        try (Connection c = database.connect();
                Statement s = c.createStatement()) {
            s.execute("UPDATE eventlog_vloer SET vloer = NULL");
            s.execute("TRUNCATE event");
            for (String partition : names(s, "SELECT naam FROM event_partition_bounds()")) {
                s.execute("DROP TABLE " + partition);
            }
            s.execute("""
                    DO $$
                    BEGIN
                        EXECUTE format('CREATE TABLE event_p0 PARTITION OF event FOR VALUES FROM (%L) TO (%L)', '0',
                                       ((CAST(CAST(pg_current_xact_id() AS text) AS bigint) / 10000000 + 2)
                                        * 10000000)::text);
                    END
                    $$""");
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reset the event log's partitions", e);
        }
    }

    /**
     * Ends the partition that holds the current transaction id at that id, so every event written so far lies
     * in a closed partition, and waits until the watermark has passed it. With {@code keepRest} the rest of its
     * range becomes a partition of its own; without, it and every range above are left to {@code event_default}.
     * Returns the closed partition's name.
     */
    public static String cutAtNow(TestDatabase database, boolean keepRest) {
        String cut;
        String closed;
        try (Connection c = database.connect();
                Statement s = c.createStatement()) {
            s.execute("LOCK TABLE event IN ACCESS EXCLUSIVE MODE");
            cut = names(s, "SELECT CAST(pg_current_xact_id() AS text)").getFirst();
            List<String> holding = names(
                    s,
                    "SELECT naam || ' ' || CAST(van AS text) || ' ' || CAST(tot AS text)"
                            + " FROM event_partition_bounds() WHERE CAST('" + cut + "' AS xid8) >= van"
                            + " AND CAST('" + cut + "' AS xid8) < tot");
            String[] bounds = holding.getFirst().split(" ");
            closed = bounds[0];
            s.execute("ALTER TABLE event DETACH PARTITION " + closed);
            s.execute("ALTER TABLE event ATTACH PARTITION " + closed + " FOR VALUES FROM ('" + bounds[1] + "') TO ('"
                    + cut + "')");
            if (keepRest) {
                s.execute("CREATE TABLE event_p" + cut + " PARTITION OF event FOR VALUES FROM ('" + cut + "') TO ('"
                        + bounds[2] + "')");
            } else {
                for (String above : names(
                        s, "SELECT naam FROM event_partition_bounds() WHERE van >= CAST('" + cut + "' AS xid8)")) {
                    s.execute("DROP TABLE " + above);
                }
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot cut the event log's partition", e);
        }
        awaitWatermarkPast(database, cut);
        return closed;
    }

    /** The range partitions, lowest first. */
    public static List<String> rangePartitions(TestDatabase database) {
        try (Connection c = database.connect();
                Statement s = c.createStatement()) {
            return names(s, "SELECT naam FROM event_partition_bounds()");
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Transactions anywhere in the cluster hold the watermark back; the tests' own are short. */
    private static void awaitWatermarkPast(TestDatabase database, String xid) {
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        try (Connection c = database.connect();
                Statement s = c.createStatement()) {
            while (names(s, "SELECT 1 WHERE pg_snapshot_xmin(pg_current_snapshot()) > CAST('" + xid + "' AS xid8)")
                    .isEmpty()) {
                c.rollback();
                if (Instant.now().isAfter(deadline)) {
                    throw new IllegalStateException("the visibility watermark did not pass " + xid);
                }
                Thread.sleep(20);
            }
            c.rollback();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static List<String> names(Statement s, String sql) throws SQLException {
        List<String> names = new ArrayList<>();
        try (ResultSet rows = s.executeQuery(sql)) {
            while (rows.next()) {
                names.add(rows.getString(1));
            }
        }
        return names;
    }
}
