package nl.overheid.moz.nmc.bench;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Benchmark 3, engine: a backlog of accepted notifications (accepted through the API with the engine off)
 * drained from {@code aangenomen} to {@code definitief-bezorgd} by the NMC's engine with the instant NotifyNL
 * (answering at once, its receipt {@value #RECEIPT_DELAY_MS} ms later), a budget nobody reaches, a one-second MEBV
 * period and the processing log on, as in production: every send waits for its record in the LDV store (PostgreSQL,
 * the cluster's database {@code ldv}); beside pgbench taking the same number of notifications of its own DVs
 * through the lifecycle's six minimal transactions plus that record's insert ({@code lifecycle.pgbench}) on the same
 * cluster. The figure carries the store's write latency as the NMC measured it ({@code nmc_ldv_write_duration}).
 */
final class EngineBench implements Benchmark {

    static final long RECEIPT_DELAY_MS = 20;
    static final Duration MEBV = Duration.ofSeconds(1);
    static final int PGBENCH_CLIENTS = 8;
    private static final double TARGET = 1.0;
    /** Holds every send task there is (the measured backlog's) a thousand years ahead, order kept. */
    private static final String HOLD = "UPDATE taak SET due = due + interval '1000 years' WHERE soort = 'verzenden'";
    /** Releases them: due again as accepted. */
    private static final String RELEASE = "UPDATE taak SET due = due - interval '1000 years'"
            + " WHERE soort = 'verzenden' AND due > now() + interval '900 years'";

    @Override
    public String name() {
        return "engine";
    }

    @Override
    public String measures() {
        return "notifications/s from aangenomen to definitief-bezorgd through the engine (instant NotifyNL"
                + " in-process, the LDV store on: a synchronous PostgreSQL insert before every send, receipt after "
                + RECEIPT_DELAY_MS + " ms, unlimited budget, MEBV period " + MEBV.toSeconds() + " s) beside pgbench"
                + " taking as many notifications through the lifecycle's six minimal transactions and the send's"
                + " LDV insert (lifecycle.pgbench, " + PGBENCH_CLIENTS + " clients)";
    }

    @Override
    public void run(BenchContext context, BenchmarkResult result) throws Exception {
        int backlog = context.size(3000, 500);
        String db = context.postgres().freshDatabase("bench_engine");
        List<String> oins = IntStream.rangeClosed(1, BenchContext.NMC_DVS)
                .mapToObj(BenchContext::nmcOin)
                .toList();
        Lifecycles lifecycles = new Lifecycles(context.postgres(), db);
        try {
            // The measured backlog first; its send tasks are held (their due a thousand years ahead) while a warm-up
            // backlog of the same DVs drains through the same JVM, so the figure is not the JIT's first minute.
            acceptBacklog(context, db, backlog, "engine-accept");
            context.postgres().execute(db, HOLD);
            int warmUp = context.quick() ? 0 : backlog;
            if (warmUp > 0) {
                acceptBacklog(context, db, warmUp, "engine-warmup");
            }
            context.postgres().execute(db, "VACUUM ANALYZE");

            BenchNmc.Options engine = engineOptions(db);
            Map<String, Object> cpu;
            boolean drained;
            long sends;
            int callbacksFailed;
            String metrics;
            Instant released;
            double warmUpSeconds;
            try (BenchNmc nmc = BenchNmc.start(context, "engine", engine)) {
                long warmUpStarted = System.nanoTime();
                if (!lifecycles.awaitAtLeast(oins, "definitief-bezorgd", warmUp, Duration.ofMinutes(10))) {
                    throw new IllegalStateException("the warm-up backlog of " + warmUp + " did not drain within the"
                            + " time-out; statuses: " + lifecycles.statuses(oins));
                }
                warmUpSeconds = (System.nanoTime() - warmUpStarted) / 1e9;
                released = Instant.now();
                context.postgres().execute(db, RELEASE);
                CpuMeter meter = CpuMeter.start(nmc.pid(), context.postmasterPid());
                drained = lifecycles.awaitNoneLive(oins, Duration.ofMinutes(context.quick() ? 3 : 10));
                cpu = meter.stop();
                sends = nmc.parties().sends();
                callbacksFailed = nmc.parties().callbacksFailed();
                metrics = nmc.metrics();
            }
            Map<String, Object> ldv = ldvWrites(context, metrics);
            Map<String, Long> statuses = lifecycles.statuses(oins);
            if (!drained) {
                throw new IllegalStateException("the engine did not drain " + backlog + " notifications within the"
                        + " time-out; statuses: " + statuses);
            }
            Instant[] started = lifecycles.eventSpan(oins, "in-verzending", released);
            List<Instant> finals = lifecycles.eventTimes(oins, "definitief-bezorgd", released);
            if (finals.size() != backlog) {
                throw new IllegalStateException(
                        "expected " + backlog + " notifications finalised after the release, found " + finals.size());
            }
            double span = Duration.between(started[0], finals.getLast()).toNanos() / 1e9;
            double raw = backlog / span;
            // Steady state: completions between the 20th and the 90th percentile, leaving out the fresh JVM's
            // warm-up at the start and the MEBV wait of the last ones at the end.
            int low = finals.size() / 5;
            int high = finals.size() * 9 / 10;
            double rate = (high - low)
                    / (Duration.between(finals.get(low), finals.get(high)).toNanos() / 1e9);

            Map<String, Object> cpuBaseline = new java.util.LinkedHashMap<>();
            Pgbench.Run pg = pgbenchLifecycle(context, db, backlog, cpuBaseline);
            double ratio = rate / pg.tps();
            result.add(
                    Figure.of(backlog + " notifications to definitief-bezorgd, LDV store on", rate, "notifications/s")
                            .baseline(pg.tps(), "pgbench lifecycle.pgbench with the LDV insert, notifications/s")
                            .target("ratio ≥ " + TARGET, ratio >= TARGET)
                            .detail("drainSecondsFirstStartToLastFinal", Latencies.round(span))
                            .detail("warmUpNotifications", warmUp)
                            .detail("warmUpSeconds", Latencies.round(warmUpSeconds))
                            .detail("rateOverTheWholeDrain", Latencies.round(raw))
                            .detail("finalStatuses", statuses)
                            .detail("sendsAtNotifyNl", sends)
                            .details(ldv)
                            .detail("receiptsFailed", callbacksFailed)
                            .detail("cpuDuringDrain", cpu)
                            .detail("cpuDuringPgbench", cpuBaseline)
                            .details(pg.latencies().summary("pgbenchLifecycle"))
                            .detail("pgbenchFailed", pg.failed())
                            .build());
            result.add(cpuPerNotification(backlog, cpu, cpuBaseline));
            if (statuses.getOrDefault("definitief-bezorgd", 0L) != backlog + warmUp) {
                result.note("not every notification ended definitief-bezorgd: " + statuses);
            }
            result.note(String.format(
                    java.util.Locale.ROOT,
                    "the rate is the steady state: the completions"
                            + " (definitief-bezorgd) between the 20th and the 90th percentile over the time between them, so"
                            + " neither the fresh JVM's warm-up nor the %d s MEBV wait of the last ones counts; over the whole"
                            + " drain, first start to last completion, it is %.0f/s; times from the events' tijdstip (the"
                            + " NMC's clock)",
                    MEBV.toSeconds(),
                    raw));
            result.note("the engine runs with its production settings (parallelism, batch size) but a 0.1 s poll"
                    + " interval; the NMC was started after the backlog was accepted, so the figure is the drain alone;"
                    + " the measured backlog's send tasks were held until a warm-up backlog as large (the same DVs,"
                    + " accepted after it) had drained through the same JVM, then released at once: a fresh JVM spends"
                    + " its first minute compiling (12.6 s of C2 over a 40 s drain without it), which a long-running"
                    + " NMC does not; finalStatuses counts both backlogs");
            result.note("the processing log is on as in production: each send's record is inserted and committed in"
                    + " the LDV store (the cluster's database ldv, its own role and connection) before the call;"
                    + " ldvWrite* are the NMC's own measure of that write (nmc_ldv_write_duration: p50/p99 over its"
                    + " last two minutes, mean over the run); the baseline inserts the same row, committed on its own,"
                    + " into a table of the same layout in its database");
        } finally {
            context.postgres().dropDatabase(db);
        }
    }

    /**
     * The LDV store's writes of the run: the NMC's measure ({@code nmc_ldv_write_duration_seconds}: its p50 and p99
     * over the last two minutes, its count and mean), its failures, and the rows the run's table holds.
     */
    static Map<String, Object> ldvWrites(BenchContext context, String metrics) {
        Map<String, Object> ldv = new java.util.LinkedHashMap<>();
        ldv.put("ldvWriteP50Ms", millis(metric(metrics, "nmc_ldv_write_duration_seconds", "quantile=\"0.5\"")));
        ldv.put("ldvWriteP99Ms", millis(metric(metrics, "nmc_ldv_write_duration_seconds", "quantile=\"0.99\"")));
        double count = metric(metrics, "nmc_ldv_write_duration_seconds_count", "");
        double sum = metric(metrics, "nmc_ldv_write_duration_seconds_sum", "");
        ldv.put("ldvWrites", (long) count);
        ldv.put("ldvWriteMeanMs", count > 0 ? millis(sum / count) : 0.0);
        ldv.put("ldvWriteMaxMs", millis(metric(metrics, "nmc_ldv_write_duration_seconds_max", "")));
        ldv.put("ldvWriteFailures", (long) metric(metrics, "nmc_ldv_write_failures_total", ""));
        try (java.sql.Connection c = java.sql.DriverManager.getConnection(
                        context.ldvUrl(), context.ldvUser(), context.ldvPassword());
                java.sql.Statement s = c.createStatement();
                java.sql.ResultSet rows = s.executeQuery("SELECT count(*) FROM " + BenchNmc.ldvTable("engine"))) {
            rows.next();
            ldv.put("ldvRecordsStored", rows.getLong(1));
        } catch (java.sql.SQLException e) {
            ldv.put("ldvRecordsStored", "unreadable: " + e.getSQLState());
        }
        return ldv;
    }

    /** The sum of a metric's series whose labels contain {@code label} (0 when there is none). */
    static double metric(String metrics, String name, String label) {
        java.util.regex.Matcher line = java.util.regex.Pattern.compile("(?m)^" + java.util.regex.Pattern.quote(name)
                        + "(\\{[^}]*" + java.util.regex.Pattern.quote(label) + "[^}]*})?\\s+(\\S+)$")
                .matcher(metrics);
        double total = 0;
        while (line.find()) {
            total += Double.parseDouble(line.group(2));
        }
        return total;
    }

    private static Double millis(double seconds) {
        return Latencies.round(seconds * 1000);
    }

    /**
     * Where the cores went, per notification: the drain's CPU (the NMC, its PostgreSQL, the harness with the in-process
     * NotifyNL) beside pgbench's (its PostgreSQL, pgbench itself), each divided by the notifications it took through.
     * Both runs keep the two cores busy, so the rates' ratio follows the inverse of these totals; the PostgreSQL parts
     * say whether the NMC asks more of the database than the minimal lifecycle does. The kernel's interrupt work
     * (the loopback network's) counts as the parties'; time the host took the CPUs for others (steal) is nobody's
     * here and is only reported. Informative: no target.
     */
    static Figure cpuPerNotification(int notifications, Map<String, Object> drain, Map<String, Object> pgbench) {
        double nmc = perNotification(drain, "cpuSecondsNmc", notifications);
        double nmcPostgres = perNotification(drain, "cpuSecondsPostgres", notifications);
        double harness = perNotification(drain, "cpuSecondsHarness", notifications);
        double other = perNotification(drain, "cpuSecondsOther", notifications)
                + perNotification(drain, "cpuSecondsInterrupts", notifications);
        double pgPostgres = perNotification(pgbench, "cpuSecondsPostgres", notifications);
        double pgClient = perNotification(pgbench, "cpuSecondsHarness", notifications);
        double pgOther = perNotification(pgbench, "cpuSecondsOther", notifications)
                + perNotification(pgbench, "cpuSecondsInterrupts", notifications);
        double drainTotal = nmc + nmcPostgres + harness + other;
        double pgbenchTotal = pgPostgres + pgClient + pgOther;
        return Figure.of("CPU per notification to definitief-bezorgd, all parties", drainTotal, "ms")
                .baseline(pgbenchTotal, "pgbench lifecycle.pgbench: PostgreSQL and pgbench, ms per notification")
                .detail("nmcMs", Latencies.round(nmc))
                .detail("postgresUnderTheNmcMs", Latencies.round(nmcPostgres))
                .detail("harnessWithNotifyNlMs", Latencies.round(harness))
                .detail("otherMs", Latencies.round(other))
                .detail("stolenMs", Latencies.round(perNotification(drain, "cpuSecondsStolen", notifications)))
                .detail("postgresUnderPgbenchMs", Latencies.round(pgPostgres))
                .detail("pgbenchClientMs", Latencies.round(pgClient))
                .detail("postgresRatio", pgPostgres == 0 ? null : Latencies.round(nmcPostgres / pgPostgres))
                .build();
    }

    private static double perNotification(Map<String, Object> cpu, String key, int notifications) {
        return cpu.get(key) instanceof Number seconds ? seconds.doubleValue() * 1000 / notifications : 0;
    }

    /** The engine's settings for throughput: a budget nobody reaches, a short MEBV period, a short poll. */
    static BenchNmc.Options engineOptions(String db) {
        return BenchNmc.Options.on(db)
                .engine(Duration.ofMillis(RECEIPT_DELAY_MS))
                .set("notifynl.services.standaard.per-minute", 100_000_000)
                .set("engine.poll-interval", "PT0.1S")
                .set("lifecycle.mebv-period", "PT" + MEBV.toSeconds() + "S")
                .set("lifecycle.callback-window", "PT0S");
    }

    /** Accepts {@code count} notifications over the ten DVs through the API, with the engine off. */
    static void acceptBacklog(BenchContext context, String db, int count, String label) {
        try (BenchNmc nmc = BenchNmc.start(context, label, BenchNmc.Options.on(db));
                HttpLoad load = new HttpLoad()) {
            List<String> tokens = IntStream.rangeClosed(1, BenchContext.NMC_DVS)
                    .mapToObj(i -> context.token(BenchContext.nmcOin(i)))
                    .toList();
            HttpLoad.Outcome accepted = load.closedLoop(
                    16,
                    Duration.ofMinutes(10),
                    count,
                    new Requests(nmc.baseUrl()).single(label, tokens),
                    HttpLoad.Worth.status(202));
            if (accepted.ok() != count) {
                throw new IllegalStateException("accepting the backlog: " + accepted.ok() + " of " + count
                        + " got a 202: " + accepted.statuses());
            }
        }
    }

    /** pgbench's DVs get {@code count} accepted notifications in SQL, then pgbench takes them through. */
    private static Pgbench.Run pgbenchLifecycle(BenchContext context, String db, int count, Map<String, Object> cpu)
            throws Exception {
        List<Path> scripts = new ArrayList<>();
        List<java.util.UUID> dvs = new ArrayList<>();
        for (int i = 1; i <= BenchContext.NMC_DVS; i++) {
            String dv = context.dvId(db, BenchContext.pgbenchOin(i));
            dvs.add(java.util.UUID.fromString(dv));
            scripts.add(
                    context.pgbench().script("lifecycle.pgbench", "lifecycle-dv" + i + ".pgbench", Map.of("DV", dv)));
        }
        long perClient = count / PGBENCH_CLIENTS;
        // pgbench picks a DV's script at random per transaction: half again as many per DV as the mean needs.
        int perDv = (int) Math.ceil(perClient * PGBENCH_CLIENTS * 1.5 / BenchContext.NMC_DVS) + 50;
        try (Connection c = context.postgres().connect(db);
                PreparedStatement s = c.prepareStatement(Resources.text("pgbench-backlog.sql"))) {
            Postgres.bind(c, s, dvs.toArray(java.util.UUID[]::new), perDv);
            s.executeUpdate();
        }
        // the LDV store's table, in the layout the NMC writes (PostgresSpanRepository), for the baseline's insert
        context.postgres().execute(db, Resources.text("ldv-spans.sql"));
        context.postgres().execute(db, "VACUUM ANALYZE");
        CpuMeter meter = CpuMeter.start(-1, context.postmasterPid());
        Pgbench.Run run = context.pgbench().forTransactions("lifecycle", db, scripts, PGBENCH_CLIENTS, perClient);
        cpu.putAll(meter.stop());
        return run;
    }
}
