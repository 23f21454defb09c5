package nl.overheid.moz.nmc.bench;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * Benchmark 1, acceptance: the NMC's {@code POST …/decentraal/notificaties} in a closed loop at 1, 8, 16, 32 and
 * 64 clients, for one DV and for ten DVs, each point beside pgbench running the acceptance's writes
 * ({@code acceptance.pgbench}) with as many clients on the same database right after it; then the NMC at
 * half its best rate in an open loop (latency from the moment each request was due) beside pgbench throttled
 * to the same rate. The engine is off, so the figure is the acceptance alone.
 */
final class AcceptanceBench implements Benchmark {

    static final List<Integer> CLIENTS = List.of(1, 8, 16, 32, 64);
    /** Issue 20: at one client half of pgbench, at 16 and 64 clients as much; the best rate as at one client. */
    private static final double TARGET_RATIO = 0.5;

    private static final double TARGET_RATIO_LOADED = 1.0;
    private static final double TARGET_P99_MS = 50;

    @Override
    public String name() {
        return "acceptance";
    }

    @Override
    public String measures() {
        return "accepted notifications/s and latency of POST …/decentraal/notificaties (engine off; closed loop"
                + " at 1, 8, 16, 32, 64 clients; 1 DV and 10 DVs) beside pgbench running the acceptance's three"
                + " inserts (acceptance.pgbench) with as many clients; and p99 at half the best rate (open loop)"
                + " beside pgbench throttled to that rate";
    }

    private record Point(int dvs, int clients, double rate) {}

    private static final List<String> STAGES =
            List.of("voorbereiden", "verzegelen", "groep", "register", "quotum", "transactie", "teruggeven");

    /**
     * Where an acceptance's time went during one point, as the NMC measured it: per stage its mean per call in
     * ms ({@code nmc_acceptance_stage_duration_seconds}), the whole request as the API filter saw it (the operations
     * whose label holds {@code operation}), and the mean group size; the stages inside a group's write are per
     * group, not per request.
     */
    static Map<String, Object> stages(String before, String after, String operation) {
        return stages(List.of(new MetricsSpan(before, after)), operation);
    }

    /** The NMC's metrics at the start and the end of a measured span. */
    record MetricsSpan(String before, String after) {}

    /** The stages' means over several spans together (their sums and counts added, the time between left out). */
    static Map<String, Object> stages(List<MetricsSpan> spans, String operation) {
        Map<String, Object> split = new java.util.LinkedHashMap<>();
        for (String stage : STAGES) {
            String label = "stap=\"" + stage + "\"";
            double count = delta(spans, "nmc_acceptance_stage_duration_seconds_count", label);
            double sum = delta(spans, "nmc_acceptance_stage_duration_seconds_sum", label);
            split.put(stage, count > 0 ? round(sum / count * 1000) : 0.0);
        }
        double requests = delta(spans, "nmc_api_request_duration_seconds_count", operation);
        double total = delta(spans, "nmc_api_request_duration_seconds_sum", operation);
        split.put("apiRequest", requests > 0 ? round(total / requests * 1000) : 0.0);
        double groups = delta(spans, "nmc_acceptance_groups_total", "");
        double members = delta(spans, "nmc_acceptance_group_members_total", "");
        split.put("meanGroupSize", groups > 0 ? round(members / groups) : 0.0);
        split.put("groupFallbacks", delta(spans, "nmc_acceptance_group_fallbacks_total", ""));
        return split;
    }

    /** Issue 20's target at {@code clients}: none at the points between. */
    static java.util.OptionalDouble targetRatio(int clients) {
        return switch (clients) {
            case 1 -> java.util.OptionalDouble.of(TARGET_RATIO);
            case 16, 64 -> java.util.OptionalDouble.of(TARGET_RATIO_LOADED);
            default -> java.util.OptionalDouble.empty();
        };
    }

    /** The client counts of {@code -Dbench.acceptance.clients} (comma-separated), or all of {@link #CLIENTS}. */
    static List<Integer> clients(String property) {
        if (property.isBlank()) {
            return CLIENTS;
        }
        return java.util.Arrays.stream(property.split(","))
                .map(String::trim)
                .map(Integer::valueOf)
                .toList();
    }

    private static double delta(List<MetricsSpan> spans, String name, String label) {
        return spans.stream()
                .mapToDouble(span ->
                        EngineBench.metric(span.after(), name, label) - EngineBench.metric(span.before(), name, label))
                .sum();
    }

    private static double round(double value) {
        return Math.round(value * 1000) / 1000.0;
    }

    @Override
    public void run(BenchContext context, BenchmarkResult result) {
        String db = context.postgres().freshDatabase("bench_acceptance");
        Duration point = context.pointDuration();
        // -Dbench.acceptance.group-commit=false (BENCH_OPTS): the same run with one transaction per request
        String groupCommit = System.getProperty("bench.acceptance.group-commit", "true");
        result.note("acceptance.group-commit: " + groupCommit);
        // -Dbench.acceptance.clients=1 (BENCH_OPTS): only these points, to look at one shape (e.g. with JFR)
        List<Integer> clientCounts = clients(System.getProperty("bench.acceptance.clients", ""));
        if (!clientCounts.equals(CLIENTS)) {
            result.note("only the points at " + clientCounts + " clients (bench.acceptance.clients)");
        }
        try (BenchNmc nmc = BenchNmc.start(
                        context, "acceptance", BenchNmc.Options.on(db).set("acceptance.group-commit", groupCommit));
                HttpLoad load = HttpLoad.chosenBy("bench.acceptance.http")) {
            result.note("load generator: " + load.clientName() + " (bench.acceptance.http=lean|jdk)");
            List<String> tokens = IntStream.rangeClosed(1, BenchContext.NMC_DVS)
                    .mapToObj(i -> context.token(BenchContext.nmcOin(i)))
                    .toList();
            List<Path> scripts = new ArrayList<>();
            for (int i = 1; i <= BenchContext.NMC_DVS; i++) {
                scripts.add(context.pgbench()
                        .script(
                                "acceptance.pgbench",
                                "acceptance-dv" + i + ".pgbench",
                                Map.of("DV", context.dvId(db, BenchContext.pgbenchOin(i)))));
            }
            Requests requests = new Requests(nmc.baseUrl());

            // Warm-up, not measured: the JIT (C2 on two busy cores needs more than 5 s: at 5 s the first point cost
            // 4x the CPU per request of a later one), the connection pools, PostgreSQL's caches.
            load.closedLoop(
                    8,
                    Duration.ofSeconds(context.quick() ? 2 : 60),
                    requests.single("warmup", tokens),
                    HttpLoad.Worth.status(202));
            // One client takes other paths than eight (groups of one: the one-row task insert, no group to join) and
            // C2 compiles them only when they run: three one-client points in a row after the warm-up above went
            // 481, 541, 614/s. So a warm-up at one client too.
            load.closedLoop(
                    1,
                    Duration.ofSeconds(context.quick() ? 1 : 30),
                    requests.single("warmup-1", tokens),
                    HttpLoad.Worth.status(202));
            context.pgbench().forDuration("acceptance-warmup", db, scripts, 8, Duration.ofSeconds(2));

            Point best = null;
            double bestBaseline = 0;
            for (int dvs : List.of(1, BenchContext.NMC_DVS)) {
                for (int clients : clientCounts) {
                    String label = dvs + "dv-" + clients + "c";
                    String metricsBefore = nmc.metrics();
                    CpuMeter cpu = CpuMeter.start(nmc.pid(), context.postmasterPid());
                    HttpLoad.Outcome nmcRun = load.closedLoop(
                            clients, point, requests.single(label, tokens.subList(0, dvs)), HttpLoad.Worth.status(202));
                    Map<String, Object> cpuNmc = cpu.stop();
                    Map<String, Object> stages = stages(metricsBefore, nmc.metrics(), "notificaties");
                    CpuMeter cpuPg = CpuMeter.start(-1, context.postmasterPid());
                    Pgbench.Run pg = context.pgbench()
                            .forDuration("acceptance-" + label, db, scripts.subList(0, dvs), clients, point);
                    Map<String, Object> cpuBaseline = cpuPg.stop();
                    double ratio = nmcRun.okPerSecond() / pg.tps();
                    Figure.Builder figure = Figure.of(
                                    (dvs == 1 ? "1 DV, " : dvs + " DVs, ")
                                            + clients
                                            + (clients == 1 ? " client" : " clients"),
                                    nmcRun.okPerSecond(),
                                    "notifications/s")
                            .baseline(pg.tps(), "pgbench acceptance.pgbench, tx/s");
                    targetRatio(clients).ifPresent(target -> figure.target("ratio ≥ " + target, ratio >= target));
                    result.add(figure.details(nmcRun.latencies().summary("nmc"))
                            .details(pg.latencies().summary("pgbench"))
                            .detail("nmcStatuses", nmcRun.statuses())
                            .detail("pgbenchFailed", pg.failed())
                            .detail("cpuDuringNmc", cpuNmc)
                            .detail("nmcStagesMs", stages)
                            .detail("cpuDuringPgbench", cpuBaseline)
                            .build());
                    if (nmcRun.failed() > 0) {
                        result.note(
                                label + ": " + nmcRun.failed() + " requests did not get a 202: " + nmcRun.statuses());
                    }
                    if (best == null || nmcRun.okPerSecond() > best.rate()) {
                        best = new Point(dvs, clients, nmcRun.okPerSecond());
                    }
                    bestBaseline = Math.max(bestBaseline, pg.tps());
                }
            }
            result.add(Figure.of(
                            "best rate (" + best.dvs() + (best.dvs() == 1 ? " DV, " : " DVs, ") + best.clients()
                                    + " clients) vs pgbench's best",
                            best.rate(),
                            "notifications/s")
                    .baseline(bestBaseline, "pgbench acceptance.pgbench, best tx/s")
                    .target("ratio ≥ " + TARGET_RATIO, best.rate() / bestBaseline >= TARGET_RATIO)
                    .build());

            // Half the best rate, open loop: the latency a DV sees while the NMC has headroom.
            double half = best.rate() / 2;
            List<String> halfTokens = tokens.subList(0, best.dvs());
            HttpLoad.Outcome open =
                    load.openLoop(half, point, requests.single("half", halfTokens), HttpLoad.Worth.status(202));
            Pgbench.Run pgHalf = context.pgbench()
                    .throttled("acceptance-half", db, scripts.subList(0, best.dvs()), best.clients(), point, half);
            double p99 = open.latencies().percentileMillis(99);
            result.add(Figure.of(
                            String.format(Locale.ROOT, "p99 at half the best rate (%.0f/s, open loop)", half),
                            p99,
                            "ms")
                    .baseline(pgHalf.latencies().percentileMillis(99), "pgbench at the same rate (-R), p99 ms")
                    .target("p99 < " + (int) TARGET_P99_MS + " ms", p99 < TARGET_P99_MS)
                    .details(open.latencies().summary("nmc"))
                    .detail("nmcAchievedRate", Latencies.round(open.okPerSecond()))
                    .detail("nmcStatuses", open.statuses())
                    .details(pgHalf.latencies().summary("pgbench"))
                    .detail("pgbenchAchievedRate", Latencies.round(pgHalf.tps()))
                    .build());
            result.note("each point " + point.toSeconds() + " s; the NMC's quota is raised beyond reach and its"
                    + " engine is off; pgbench writes for DVs of its own in the same database, right after the"
                    + " NMC's point, so both see the same table sizes; the load generator runs on the same cores");
        } finally {
            context.postgres().dropDatabase(db);
        }
    }
}
