package nl.overheid.moz.nmc.bench;

import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.IntStream;

/**
 * Benchmark 7, storage: bytes per completed notification across all tables and indexes (the sum of
 * {@code pg_total_relation_size} over every table and partition of the schema, toast and indexes included),
 * as the delta over N notifications taken through the API and the engine to {@code definitief-bezorgd}, after
 * a first {@value #WARM_UP} (so that no relation's first pages count).
 * Judged after {@code VACUUM FULL} (what a completed notification keeps for its retention period); the
 * figure as written (dead row versions of its transitions still in the pages) is reported beside it, and a third:
 * as written over a steady run (acceptance at a fixed rate while the engine completes the notifications, for
 * minutes, with autovacuum as the cluster has it), which is what a running NMC's tables grow by (issue 20). The
 * baseline is the notifications' row data itself ({@code pg_column_size} of their live rows).
 */
final class StorageBench implements Benchmark {

    private static final double TARGET_BYTES = 3 * 1024;
    private static final int WARM_UP = 200;
    /** The steady run: acceptance at this rate (about half what the engine completes on 2 cores) for this long. */
    private static final int STEADY_RATE = 50;

    private static final Duration STEADY_DURATION = Duration.ofMinutes(4);

    @Override
    public String name() {
        return "storage";
    }

    @Override
    public String measures() {
        return "bytes per completed notification over all tables, partitions, toast and indexes (delta of"
                + " pg_total_relation_size over N notifications to definitief-bezorgd, after VACUUM FULL) beside"
                + " the bytes of their live rows (pg_column_size)";
    }

    @Override
    public void run(BenchContext context, BenchmarkResult result) throws Exception {
        int count = context.size(2000, 300);
        String db = context.postgres().freshDatabase("bench_storage");
        List<String> oins = IntStream.rangeClosed(1, BenchContext.NMC_DVS)
                .mapToObj(BenchContext::nmcOin)
                .toList();
        try {
            // A first 200 fill every table's and index's first pages, so the delta is what a notification
            // adds, not what an empty relation costs once.
            complete(context, db, oins, WARM_UP, "storage-warmup");
            context.postgres().execute(db, "VACUUM FULL");
            Map<String, Long> before = sizes(context, db);
            Map<String, Long> compactedPartsBefore = parts(context, db);
            Map<String, Long> rowsBefore = rowBytes(context, db);

            complete(context, db, oins, count, "storage");
            Map<String, Long> statuses = new Lifecycles(context.postgres(), db).statuses(oins);
            Map<String, Long> written = sizes(context, db);
            context.postgres().execute(db, "VACUUM FULL");
            Map<String, Long> compacted = sizes(context, db);
            Map<String, Long> compactedParts = parts(context, db);
            Map<String, Long> rowsAfter = rowBytes(context, db);

            double perNotification = delta(compacted, before) / (double) count;
            double asWritten = delta(written, before) / (double) count;
            double rows = delta(rowsAfter, rowsBefore) / (double) count;
            result.add(Figure.of("bytes per completed notification, after VACUUM FULL", perNotification, "bytes")
                    .baseline(rows, "the live rows' own bytes (pg_column_size), bytes")
                    .target("≤ 3 KB (3,072 bytes)", perNotification <= TARGET_BYTES)
                    .detail("perRelationAfterVacuumFull", perRelation(compacted, before, count))
                    .detail("perHeapAndIndexAfterVacuumFull", perRelation(compactedParts, compactedPartsBefore, count))
                    .detail("notifications", count)
                    .detail("statuses", statuses)
                    .build());
            result.add(Figure.of("bytes per completed notification, as written (before vacuum)", asWritten, "bytes")
                    .baseline(rows, "the live rows' own bytes (pg_column_size), bytes")
                    .detail("perRelationAsWritten", perRelation(written, before, count))
                    .build());
            // A steady run from here (the compacted state is its start): acceptance at a fixed rate while the engine
            // completes them, autovacuum as the cluster has it, for long enough for several of its rounds.
            int rate = context.quick() ? 20 : STEADY_RATE;
            Duration steadyFor = context.quick() ? Duration.ofSeconds(30) : STEADY_DURATION;
            Map<String, Long> steadyBefore = sizes(context, db);
            Map<String, Long> partsBefore = parts(context, db);
            Map<String, Long> vacuumsBefore = autovacuums(context, db);
            long steadyCount = steady(context, db, oins, rate, steadyFor, "storage-steady");
            Map<String, Long> steadyAfter = sizes(context, db);
            Map<String, Long> partsAfter = parts(context, db);
            double steadyPerNotification = delta(steadyAfter, steadyBefore) / (double) steadyCount;
            Map<String, Long> vacuums = new TreeMap<>();
            autovacuums(context, db).forEach((table, n) -> {
                long ran = n - vacuumsBefore.getOrDefault(table, 0L);
                if (ran > 0) {
                    vacuums.put(table, ran);
                }
            });
            result.add(Figure.of(
                            "bytes per completed notification, as written in a steady run with autovacuum",
                            steadyPerNotification,
                            "bytes")
                    .baseline(rows, "the live rows' own bytes (pg_column_size), bytes")
                    .target("≤ 3 KB (3,072 bytes)", steadyPerNotification <= TARGET_BYTES)
                    .detail("perRelation", perRelation(steadyAfter, steadyBefore, (int) steadyCount))
                    .detail("perHeapAndIndex", perRelation(partsAfter, partsBefore, (int) steadyCount))
                    .detail("notifications", steadyCount)
                    .detail("acceptedPerSecond", rate)
                    .detail("seconds", steadyFor.toSeconds())
                    .detail("autovacuumRunsPerTable", vacuums)
                    .detail("autovacuumSettings", autovacuumSettings(context, db))
                    .build());
            result.note("the steady run accepts at a fixed rate while the engine completes the notifications, for "
                    + steadyFor.toSeconds() + " s, on the database compacted above; autovacuum runs as the cluster"
                    + " has it (PostgreSQL's defaults: the manifests configure none, the database is the platform's),"
                    + " so the space of the tasks' and transitions' dead row versions is reused as the run goes on;"
                    + " the figure is the growth of every relation over the run per notification completed");
            result.note("a completed notification keeps its notificatie, poging, ontvangst and five events (its wissen"
                    + " task is planned only once privacy.erase-after has passed, so none in these runs); the"
                    + " as-written figure includes the dead row versions"
                    + " its transitions left, which autovacuum makes reusable but does not return; measured from "
                    + WARM_UP + " completed notifications (after VACUUM FULL) to " + (WARM_UP + count));
        } finally {
            context.postgres().dropDatabase(db);
        }
    }

    /** Takes {@code count} notifications through the API and the engine to a final status, then stops the NMC. */
    private static void complete(BenchContext context, String db, List<String> oins, int count, String label)
            throws InterruptedException {
        try (BenchNmc nmc = BenchNmc.start(context, label, EngineBench.engineOptions(db));
                HttpLoad load = new HttpLoad()) {
            HttpLoad.Outcome accepted = load.closedLoop(
                    8,
                    Duration.ofMinutes(10),
                    count,
                    new Requests(nmc.baseUrl())
                            .single(label, oins.stream().map(context::token).toList()),
                    HttpLoad.Worth.status(202));
            if (accepted.ok() != count) {
                throw new IllegalStateException(accepted.ok() + " of " + count + " accepted: " + accepted.statuses());
            }
            if (!new Lifecycles(context.postgres(), db).awaitNoneLive(oins, Duration.ofMinutes(10))) {
                throw new IllegalStateException("the notifications did not all complete within ten minutes");
            }
        }
    }

    /**
     * Accepts at {@code rate} a second for {@code duration} while the engine runs, then waits until every
     * notification is final; returns how many were accepted.
     */
    private static long steady(
            BenchContext context, String db, List<String> oins, int rate, Duration duration, String label)
            throws InterruptedException {
        try (BenchNmc nmc = BenchNmc.start(context, label, EngineBench.engineOptions(db));
                HttpLoad load = new HttpLoad()) {
            HttpLoad.Outcome accepted = load.openLoop(
                    rate,
                    duration,
                    new Requests(nmc.baseUrl())
                            .single(label, oins.stream().map(context::token).toList()),
                    HttpLoad.Worth.status(202));
            if (accepted.ok() != accepted.requests()) {
                throw new IllegalStateException(
                        accepted.ok() + " of " + accepted.requests() + " accepted: " + accepted.statuses());
            }
            if (!new Lifecycles(context.postgres(), db).awaitNoneLive(oins, Duration.ofMinutes(10))) {
                throw new IllegalStateException("the notifications did not all complete within ten minutes");
            }
            return accepted.ok();
        }
    }

    /** How often autovacuum has run on each table. */
    private static Map<String, Long> autovacuums(BenchContext context, String db) {
        return numbers(pairs(context, db, "SELECT relname, autovacuum_count FROM pg_stat_user_tables"));
    }

    /** The cluster's autovacuum settings the steady run ran under. */
    private static Map<String, String> autovacuumSettings(BenchContext context, String db) {
        return pairs(
                context,
                db,
                "SELECT name, setting FROM pg_settings WHERE name IN ('autovacuum', 'autovacuum_naptime',"
                        + " 'autovacuum_vacuum_scale_factor', 'autovacuum_vacuum_threshold',"
                        + " 'autovacuum_vacuum_insert_scale_factor', 'autovacuum_vacuum_cost_limit')");
    }

    /** A query's rows of two columns as a map, by the first. */
    private static Map<String, String> pairs(BenchContext context, String db, String sql) {
        Map<String, String> pairs = new TreeMap<>();
        for (String[] row : context.postgres().rows(db, sql)) {
            pairs.put(row[0], row[1]);
        }
        return pairs;
    }

    private static Map<String, Long> numbers(Map<String, String> pairs) {
        Map<String, Long> numbers = new TreeMap<>();
        pairs.forEach((key, value) -> numbers.put(key, Long.parseLong(value)));
        return numbers;
    }

    /** Every table and partition of the schema with its total size (heap, toast, indexes). */
    private static Map<String, Long> sizes(BenchContext context, String db) {
        return relations(context, db, "pg_total_relation_size", "'r', 'm'");
    }

    /** Every table's heap and every index of the schema with its own size, to say where a table's bytes are. */
    private static Map<String, Long> parts(BenchContext context, String db) {
        return relations(context, db, "pg_relation_size", "'r', 'i'");
    }

    /** The schema's relations of the given kinds ({@code pg_class.relkind}), each measured by {@code size}. */
    private static Map<String, Long> relations(BenchContext context, String db, String size, String kinds) {
        return numbers(pairs(
                context,
                db,
                "SELECT c.relname, " + size + "(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                        + " WHERE n.nspname = 'public' AND c.relkind IN (" + kinds + ")"));
    }

    /** The bytes of every table's live rows. */
    private static Map<String, Long> rowBytes(BenchContext context, String db) {
        Map<String, Long> bytes = new TreeMap<>();
        for (String table : sizes(context, db).keySet()) {
            bytes.put(
                    table,
                    context.postgres()
                            .number(db, "SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM " + "\"" + table + "\" t"));
        }
        return bytes;
    }

    private static long delta(Map<String, Long> after, Map<String, Long> before) {
        return after.entrySet().stream()
                .mapToLong(e -> e.getValue() - before.getOrDefault(e.getKey(), 0L))
                .sum();
    }

    /** Bytes per notification of each relation that grew, largest first. */
    private static Map<String, Long> perRelation(Map<String, Long> after, Map<String, Long> before, int count) {
        Map<String, Long> grown = new LinkedHashMap<>();
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), (e.getValue() - before.getOrDefault(e.getKey(), 0L)) / count))
                .filter(e -> e.getValue() != 0)
                .sorted(Map.Entry.<String, Long>comparingByValue(Comparator.reverseOrder()))
                .forEach(e -> grown.put(e.getKey(), e.getValue()));
        return grown;
    }
}
