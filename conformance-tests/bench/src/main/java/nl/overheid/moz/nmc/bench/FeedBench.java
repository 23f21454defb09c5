package nl.overheid.moz.nmc.bench;

import java.net.http.HttpResponse;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;
import nl.overheid.moz.nmc.feed.Cursor;
import nl.overheid.moz.nmc.feed.CursorCodec;

/**
 * Benchmark 6, feed: the latency of one page of the feed ({@code GET …/notificaties/wijzigingen}, default
 * page size, one client reading back to back) for one of ten DVs, read from the start (no cursor), from the
 * middle and near the head (50 events before the end), with the event log at {@value #LARGE} events (the
 * baseline: {@value #SMALL}). The events are generated in SQL over {@value #PARTITIONS} range partitions below
 * the visibility watermark (laid out anew, as the tests' {@code EventLogPartitions} does), each
 * notification with its five events, as the lifecycle writes them; then VACUUM ANALYZE, as autovacuum would
 * have done. The NMC's engine and duties are off, so nothing else writes or drops partitions.
 */
final class FeedBench implements Benchmark {

    static final long LARGE = 10_000_000;
    static final long SMALL = 10_000;
    static final int PARTITIONS = 6;
    private static final double TARGET = 1.5;
    private static final List<String> POSITIONS = List.of("start", "middle", "head");

    @Override
    public String name() {
        return "feed";
    }

    @Override
    public String measures() {
        return "latency of one feed page (default size) for one of 10 DVs, from the start, the middle and 50"
                + " events before the head, with 10^7 events in the log (or -Dbench.feed.events; " + PARTITIONS
                + " partitions, generated in SQL) beside the same reads with " + SMALL + " events";
    }

    @Override
    public void run(BenchContext context, BenchmarkResult result) throws Exception {
        long large = Long.getLong("bench.feed.events", context.quick() ? 200_000 : LARGE);
        String db = context.postgres().freshDatabase("bench_feed");
        try {
            // The NMC migrates and seeds once; the log is then laid out with no NMC running.
            BenchNmc.start(context, "feed-migrate", BenchNmc.Options.on(db)).close();
            List<String> dvs = IntStream.rangeClosed(1, BenchContext.NMC_DVS)
                    .mapToObj(i -> context.dvId(db, BenchContext.nmcOin(i)))
                    .toList();

            double smallSeconds = generate(context, db, dvs, SMALL);
            Map<String, Latencies> small = readPages(context, db, dvs.getFirst(), "feed-small");
            double largeSeconds = generate(context, db, dvs, large);
            String size = context.postgres()
                    .text(
                            db,
                            "SELECT pg_size_pretty(sum(pg_total_relation_size(c.oid)))"
                                    + " FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'event'::regclass");
            Map<String, Latencies> big = readPages(context, db, dvs.getFirst(), "feed-large");

            for (String position : POSITIONS) {
                double value = big.get(position).percentileMillis(50);
                double baseline = small.get(position).percentileMillis(50);
                result.add(Figure.of(
                                "page from the " + position + ", p50, " + String.format(Locale.ROOT, "%,d", large)
                                        + " events",
                                value,
                                "ms")
                        .baseline(baseline, String.format(Locale.ROOT, "the same read at %,d events, p50 ms", SMALL))
                        .target("ratio ≤ " + TARGET, value / baseline <= TARGET)
                        .details(big.get(position).summary("large"))
                        .details(small.get(position).summary("small"))
                        .build());
            }
            result.note(String.format(
                    Locale.ROOT,
                    "%,d events generated in %.0f s (%s with indexes, %d partitions);"
                            + " %,d in %.1f s; each position read %d times after a warm-up",
                    large,
                    largeSeconds,
                    size,
                    PARTITIONS,
                    SMALL,
                    smallSeconds,
                    reads(context)));
        } finally {
            context.postgres().dropDatabase(db);
        }
    }

    private static int reads(BenchContext context) {
        return context.quick() ? 50 : 200;
    }

    /**
     * Replaces the event log by {@code total} events: the range partitions dropped and laid out anew, {@value
     * #PARTITIONS} of them over the transaction ids already used (so every event lies below the watermark)
     * and one above for what the NMC writes later. Each range is filled as a plain table and then attached,
     * which builds its indexes in one sort instead of row by row (about twice as fast); the events' ids
     * follow their commit order, and the identity continues after them.
     */
    private static double generate(BenchContext context, String db, List<String> dvs, long total) {
        long start = System.nanoTime();
        Postgres pg = context.postgres();
        pg.execute(db, "TRUNCATE event");
        for (String[] partition : pg.rows(db, "SELECT naam FROM event_partition_bounds()")) {
            pg.execute(db, "DROP TABLE " + partition[0]);
        }
        long current = pg.number(db, "SELECT CAST(CAST(pg_current_xact_id() AS text) AS bigint)");
        long width = Math.max(1, current / PARTITIONS);
        String dvArray = "CAST(ARRAY['" + String.join("','", dvs) + "'] AS uuid[])";
        String xid = "1 + g * " + (current - 2) + " / " + total;
        for (int p = 0; p < PARTITIONS; p++) {
            long from = p * width;
            long to = p == PARTITIONS - 1 ? current : (p + 1) * width;
            long gFrom = Math.max(0, (from - 1) * total / (current - 2) - 2);
            long gTo = Math.min(total - 1, (to - 1) * total / (current - 2) + 2);
            String table = "event_p" + from;
            pg.execute(db, "CREATE TABLE " + table + " (LIKE event INCLUDING DEFAULTS INCLUDING CONSTRAINTS)");
            // event g: notification g / 5 (of DV (g / 5) % 10), its volgnummer g % 5 + 1, in commit order
            pg.execute(db, """
                    INSERT INTO %s (id, transactie_id, tijdstip, dv_id, notificatie, volgnummer, van, naar, reden)
                    SELECT g + 1, CAST(CAST(%s AS text) AS xid8),
                           now() - make_interval(secs => (%d - g) / 1000.0),
                           (%s)[(g / 5) %% 10 + 1],
                           CAST(md5(CAST(g / 5 AS text)) AS uuid),
                           g %% 5 + 1,
                           (ARRAY[NULL, 'aangenomen', 'in-verzending', 'verzonden', 'bezorgd'])[g %% 5 + 1],
                           (ARRAY['aangenomen', 'in-verzending', 'verzonden', 'bezorgd', 'definitief-bezorgd'])[g %% 5 + 1],
                           NULL
                      FROM generate_series(CAST(%d AS bigint), CAST(%d AS bigint)) AS g
                     WHERE %s >= %d AND %s < %d
                    """.formatted(table, xid, total, dvArray, gFrom, gTo, xid, from, xid, to));
            // The CHECK spares the attach its scan; the attach builds the partition's indexes.
            pg.execute(
                    db,
                    "ALTER TABLE " + table + " ADD CONSTRAINT " + table + "_bereik CHECK (transactie_id >= '" + from
                            + "' AND transactie_id < '" + to + "')",
                    "ALTER TABLE event ATTACH PARTITION " + table + " FOR VALUES FROM ('" + from + "') TO ('" + to
                            + "')",
                    "ALTER TABLE " + table + " DROP CONSTRAINT " + table + "_bereik");
        }
        pg.execute(
                db,
                "CREATE TABLE event_p" + current + " PARTITION OF event FOR VALUES FROM ('" + current + "') TO ('"
                        + (current + 100_000_000L) + "')",
                "SELECT setval(pg_get_serial_sequence('event', 'id'), " + total + ")",
                "VACUUM ANALYZE event");
        long written = pg.number(db, "SELECT count(*) FROM event");
        if (written != total) {
            throw new IllegalStateException("generated " + written + " events instead of " + total);
        }
        return (System.nanoTime() - start) / 1e9;
    }

    /** Reads pages at the three positions with a fresh NMC; per position the latencies. */
    private static Map<String, Latencies> readPages(BenchContext context, String db, String dv, String label) {
        long events = context.postgres().number(db, "SELECT count(*) FROM event WHERE dv_id = CAST(? AS uuid)", dv);
        int epoch = (int) context.postgres().number(db, "SELECT epoch FROM cluster_epoch");
        CursorCodec codec = new CursorCodec(Base64.getDecoder()
                .decode(context.config().get("feed.cursor-key").asString().get()));
        Map<String, String> cursors = new LinkedHashMap<>();
        cursors.put("start", null);
        cursors.put("middle", cursor(context, db, dv, events / 2, epoch, codec));
        cursors.put("head", cursor(context, db, dv, Math.max(0, events - 50), epoch, codec));
        Map<String, Latencies> latencies = new LinkedHashMap<>();
        try (BenchNmc nmc = BenchNmc.start(context, label, BenchNmc.Options.on(db));
                HttpLoad load = new HttpLoad()) {
            Requests requests = new Requests(nmc.baseUrl());
            String token = context.token(BenchContext.nmcOin(1));
            for (Map.Entry<String, String> position : cursors.entrySet()) {
                Latencies measured = new Latencies();
                for (int i = -20; i < reads(context); i++) {
                    long sent = System.nanoTime();
                    HttpResponse<String> page = load.send(requests.feed(token, position.getValue()));
                    long answered = System.nanoTime();
                    if (page.statusCode() != 200 || !page.body().contains("\"events\"")) {
                        throw new IllegalStateException("feed page from the " + position.getKey() + " answered "
                                + page.statusCode() + ": " + page.body());
                    }
                    if (i >= 0) {
                        measured.recordNanos(answered - sent);
                    }
                }
                latencies.put(position.getKey(), measured);
            }
        }
        return latencies;
    }

    /** The cursor the NMC would have handed out after the DV's {@code offset}-th event. */
    private static String cursor(
            BenchContext context, String db, String dv, long offset, int epoch, CursorCodec codec) {
        String[] event = context.postgres()
                .rows(
                        db,
                        "SELECT CAST(transactie_id AS text), id FROM event"
                                + " WHERE dv_id = CAST(? AS uuid) ORDER BY transactie_id, id OFFSET ? LIMIT 1",
                        dv,
                        offset)
                .getFirst();
        return codec.encode(new Cursor(epoch, event[0], Long.parseLong(event[1]), Instant.now()));
    }
}
