package nl.overheid.moz.nmc.bench;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Reads of a benchmark database about how far its notifications got (plain SQL, read-only). */
final class Lifecycles {

    private static final long POLL = 1000;
    private static final String LIVE = "('aangenomen', 'in-verzending', 'verzonden', 'bezorgd')";

    private final Postgres postgres;
    private final String database;

    Lifecycles(Postgres postgres, String database) {
        this.postgres = postgres;
        this.database = database;
    }

    /** Notifications not yet terminal, of the DVs with these OINs. */
    long live(List<String> oins) {
        return postgres.number(
                database,
                "SELECT count(*) FROM notificatie n JOIN dienstverlener d ON d.id = n.dv_id" + " WHERE n.status IN "
                        + LIVE + " AND d.oin = ANY (CAST(? AS text[]))",
                (Object) oins.toArray(String[]::new));
    }

    /** Notifications per status, of the DVs with these OINs. */
    Map<String, Long> statuses(List<String> oins) {
        Map<String, Long> statuses = new LinkedHashMap<>();
        for (String[] row : postgres.rows(
                database,
                "SELECT n.status, count(*) FROM notificatie n"
                        + " JOIN dienstverlener d ON d.id = n.dv_id WHERE d.oin = ANY (CAST(? AS text[]))"
                        + " GROUP BY n.status ORDER BY n.status",
                (Object) oins.toArray(String[]::new))) {
            statuses.put(row[0], Long.parseLong(row[1]));
        }
        return statuses;
    }

    /**
     * Waits until no notification of these DVs is live any more; false on time-out. Polls once a second (one
     * count, about 10 ms of the database's time at 6,000 notifications: it shares the cores with what it measures;
     * the figures come from the events' times, not from when this noticed).
     */
    boolean awaitNoneLive(List<String> oins, Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (live(oins) > 0) {
            if (Instant.now().isAfter(deadline)) {
                return false;
            }
            Thread.sleep(POLL);
        }
        return true;
    }

    /** The earliest and latest moment (the NMC's clock) an event moved a notification of these DVs to a status. */
    Instant[] eventSpan(List<String> oins, String naar) {
        return eventSpan(oins, naar, Instant.EPOCH);
    }

    /** {@link #eventSpan(List, String)} of the events at or after {@code since}. */
    Instant[] eventSpan(List<String> oins, String naar, Instant since) {
        List<String[]> rows = postgres.rows(
                database,
                "SELECT CAST(extract(epoch FROM min(e.tijdstip)) AS text),"
                        + " CAST(extract(epoch FROM max(e.tijdstip)) AS text), count(*) FROM event e"
                        + " JOIN dienstverlener d ON d.id = e.dv_id WHERE e.naar = ? AND d.oin = ANY (CAST(? AS text[]))"
                        + " AND e.tijdstip >= to_timestamp(CAST(? AS double precision))",
                naar,
                oins.toArray(String[]::new),
                seconds(since));
        String[] row = rows.getFirst();
        if (row[0] == null) {
            return null;
        }
        return new Instant[] {epoch(row[0]), epoch(row[1])};
    }

    /** When each event that moved a notification of these DVs to {@code naar} happened, in order. */
    List<Instant> eventTimes(List<String> oins, String naar) {
        return eventTimes(oins, naar, Instant.EPOCH);
    }

    /** {@link #eventTimes(List, String)} of the events at or after {@code since}. */
    List<Instant> eventTimes(List<String> oins, String naar, Instant since) {
        return postgres
                .rows(
                        database,
                        "SELECT CAST(extract(epoch FROM e.tijdstip) AS text) FROM event e"
                                + " JOIN dienstverlener d ON d.id = e.dv_id WHERE e.naar = ? AND d.oin = ANY (CAST(? AS text[]))"
                                + " AND e.tijdstip >= to_timestamp(CAST(? AS double precision))"
                                + " ORDER BY e.tijdstip",
                        naar,
                        oins.toArray(String[]::new),
                        seconds(since))
                .stream()
                .map(row -> epoch(row[0]))
                .toList();
    }

    /** Waits until at least {@code count} notifications of these DVs are {@code status}; false on time-out. */
    boolean awaitAtLeast(List<String> oins, String status, long count, Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        while (statuses(oins).getOrDefault(status, 0L) < count) {
            if (Instant.now().isAfter(deadline)) {
                return false;
            }
            Thread.sleep(POLL);
        }
        return true;
    }

    private static String seconds(Instant at) {
        return String.valueOf(at.getEpochSecond() + at.getNano() / 1e9);
    }

    static Instant epoch(String seconds) {
        double value = Double.parseDouble(seconds);
        long whole = (long) Math.floor(value);
        return Instant.ofEpochSecond(whole, Math.round((value - whole) * 1e9));
    }
}
