package nl.overheid.moz.nmc.testing;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The state of the tables a request could write, in one statement on one held connection: what a fuzz target
 * compares before and after each request (nothing stored for a refusal). Per table the number of rows and the
 * newest row version ({@code xmin}, the writing transaction): an insert or delete changes the first, an update the
 * second, so a refusal that updated a row in place is caught too, not only one that added or removed one.
 */
public final class RowCounts implements AutoCloseable {

    /**
     * The tables a DV, NotifyNL or an operator could make the NMC write. Not the rate counters ({@code
     * aannameteller}, {@code dvaanroep}, {@code verzendbudget}): they count attempts, refused ones too.
     */
    public static final List<String> TABLES = List.of(
            "notificatie",
            "event",
            "taak",
            "poging",
            "ontvangst",
            "bevestiging",
            "beheeractie",
            "beheermelding",
            "dienstverlener",
            "dienstverlener_berichttype",
            "berichttype",
            "cluster_epoch",
            "pepper_gecompromitteerd",
            "webhookpositie");

    private final Connection connection;
    private final String query;

    public RowCounts(TestDatabase database) {
        try {
            this.connection = database.connect();
            // no transaction held open across requests: it would hold back the feed's watermark
            this.connection.setAutoCommit(true);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        this.query = "SELECT "
                + String.join(
                        ", ",
                        TABLES.stream()
                                .map(t -> "(SELECT count(*) FROM " + t
                                        + "), (SELECT coalesce(max(xmin::text::bigint), 0)" + " FROM " + t + ")")
                                .toList());
    }

    /** The tables' rows at one moment. */
    public record State(Map<String, Long> counts, Map<String, Long> newest) {

        /** The rows {@code table} gained since {@code before} (negative: lost). */
        public long added(State before, String table) {
            return counts.get(table) - before.counts.get(table);
        }

        /** The tables whose rows were added, removed or updated since {@code before}. */
        public List<String> changedSince(State before) {
            return TABLES.stream()
                    .filter(t -> !counts.get(t).equals(before.counts.get(t))
                            || !newest.get(t).equals(before.newest.get(t)))
                    .toList();
        }
    }

    public State now() {
        try (Statement statement = connection.createStatement();
                ResultSet row = statement.executeQuery(query)) {
            row.next();
            Map<String, Long> counts = new LinkedHashMap<>();
            Map<String, Long> newest = new LinkedHashMap<>();
            for (int i = 0; i < TABLES.size(); i++) {
                counts.put(TABLES.get(i), row.getLong(2 * i + 1));
                newest.put(TABLES.get(i), row.getLong(2 * i + 2));
            }
            return new State(counts, newest);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        try {
            connection.close();
        } catch (SQLException e) {
            // nothing to keep
        }
    }
}
