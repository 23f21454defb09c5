package nl.overheid.moz.nmc.bench;

import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongFunction;

/**
 * Benchmark 9, flood: one DV sends {@value #FLOOD_CLIENTS} concurrent maximal bulk requests (1000 items, about 4 MB
 * each) without pause to the NMC at {@code -Xmx256m}, while another DV accepts single notifications at one client.
 * The baseline is that other DV alone, in the same run on the same database, in {@value #ROUNDS} rounds that take
 * turns with the flood's two variants (as sent, with {@code Expect: 100-continue}). The NMC must stay up (no
 * OutOfMemoryError) and the other DV's acceptance p99 stay within 2× its unloaded figure: the request limits
 * (ARCHITECTURE §4, "Limits") answer the flood's surplus with a 429 before reading its body.
 */
final class FloodBench implements Benchmark {

    static final int FLOOD_CLIENTS = 50;
    static final int ITEMS = 1000;
    static final double TARGET_RATIO = 2.0;
    /** Distinct maximal bodies the flood cycles through. */
    static final int BODIES = 8;
    /**
     * The flood's sockets' send buffer: Linux grows a loopback socket's to 4 MB, and each of the 49 clients refused
     * together every second then copied its whole 4 MB body into this machine's kernel before it saw the refusal — in
     * one run 1.2 s of the harness's CPU in 23.5 s, in bursts, and a third of the other DV's calls of 4 ms and more.
     * What reaches the NMC is the same (up to its receive buffer, 256 KB, per refused call); an attacker's own
     * buffers are on the attacker's machine.
     */
    static final int FLOOD_SEND_BUFFER = 64 * 1024;
    /** How often the phases (alone, as sent, with Expect: 100-continue) take turns. */
    static final int ROUNDS = 3;
    /** How long the flood runs before the other DV beside it is measured. */
    static final long FLOOD_LEAD_MILLIS = 500;
    /** Both paths warmed up together before anything is measured. */
    static final int WARMUP_SECONDS = 30;
    /** The other DV's operation in the NMC's metrics (its label), for the NMC's own view of its time. */
    private static final String SINGLE = "operatie=\"POST " + Requests.DECENTRAAL + "\"";
    /** Personalisation text that makes an item about 4 KB, so 1000 items fill the 4 MB bulk limit. */
    private static final String FILL = "x".repeat(3_880);

    @Override
    public String name() {
        return "flood";
    }

    @Override
    public String measures() {
        return "another DV's single-acceptance p99 while one DV floods the NMC (-Xmx" + MemoryBench.HEAP + ") with "
                + FLOOD_CLIENTS + " concurrent maximal bulk requests, against that DV alone";
    }

    @Override
    public void run(BenchContext context, BenchmarkResult result) throws Exception {
        // each phase measured as long as before the rounds were interleaved (3 points), in ROUNDS parts
        Duration segment =
                context.pointDuration().multipliedBy(context.quick() ? 1 : 3).dividedBy(ROUNDS);
        String db = context.postgres().freshDatabase("bench_flood");
        Path gcLog = context.outDirectory().resolve("logs").resolve("flood-gc.log");
        BenchNmc.Options options = BenchNmc.Options.on(db)
                // the heap fixed at its maximum, as the image starts it (-XX:InitialRAMPercentage = MaxRAMPercentage)
                .jvm(
                        "-Xmx" + MemoryBench.HEAP,
                        "-Xms" + MemoryBench.HEAP,
                        "-XX:+ExitOnOutOfMemoryError",
                        "-Xlog:gc:file=" + gcLog);
        String flooder = context.token(BenchContext.nmcOin(1));
        String other = context.token(BenchContext.nmcOin(2));
        // both DVs' calls through LeanHttp, as in the acceptance benchmark (-Dbench.flood.http=jdk: the other DV's
        // through the JDK's client; -Dbench.flood.flooder-http=jdk: the flood's): the flood's client shares the two
        // cores with the NMC, and the JDK's spent some 9 s of CPU in 23 s pushing the refused calls' bodies (the
        // flood's through sockets with a send buffer of FLOOD_SEND_BUFFER)
        try (BenchNmc nmc = BenchNmc.start(context, "flood", options);
                HttpLoad load = HttpLoad.chosenBy("bench.flood.http");
                HttpLoad floodLoad = HttpLoad.chosenBy("bench.flood.flooder-http", FLOOD_SEND_BUFFER)) {
            Requests requests = new Requests(nmc.baseUrl());
            // Warm-up of both paths together, with bodies of their own, then the other DV alone. Two seconds were
            // not enough: C2 then still compiled on both cores through the other DV's measurement alone (16 of its
            // 24 CPU seconds in the compiler threads, /proc per thread) and into the flood's first phase.
            List<byte[]> warmupBodies = bodies(requests, 0, 2);
            Duration warmup = Duration.ofSeconds(context.quick() ? 2 : WARMUP_SECONDS);
            CompletableFuture<HttpLoad.Outcome> warmingBulk = CompletableFuture.supplyAsync(() -> floodLoad.closedLoop(
                    1,
                    warmup,
                    i -> requests.post(Requests.BULK, flooder, warmupBodies.get((int) (i % 2)), false),
                    response -> 1));
            load.closedLoop(2, warmup, requests.single("warmup", List.of(other)), HttpLoad.Worth.status(202));
            warmingBulk.get();
            // Built before the first round, as bytes: fifty-odd 4 MB bodies a second built or encoded anew would take
            // the load generator's CPU from the NMC it shares the machine with. Each variant its own: a body's first
            // acceptance creates its notifications (about 4 MB of ciphertext each), later ones are repeats, and both
            // variants flood with the same mix over their rounds together.
            Map<Boolean, List<byte[]>> bodies = Map.of(
                    false, bodies(requests, 2, BODIES),
                    true, bodies(requests, 2 + BODIES, BODIES));
            // The three phases interleaved, ROUNDS times: alone, as sent, with Expect: 100-continue. This machine's
            // speed drifts over a run (other guests of its host), and a baseline measured once, before both floods,
            // made the ratio follow that drift: the other DV's p99 alone moved 1.9-6.2 ms between runs of one build.
            Phase alone = new Phase();
            Map<Boolean, Phase> beside = Map.of(false, new Phase(), true, new Phase());
            Map<Boolean, HttpLoad.Outcome> floods = new java.util.HashMap<>();
            boolean oom = false;
            for (int round = 0; round < ROUNDS && !oom; round++) {
                alone.add(measure(nmc, context, load, requests.single("alone-" + round, List.of(other)), segment));
                for (boolean expectContinue : List.of(false, true)) {
                    List<byte[]> variant = bodies.get(expectContinue);
                    LongFunction<HttpRequest> flood =
                            i -> requests.post(Requests.BULK, flooder, variant.get((int) (i % BODIES)), expectContinue);
                    // the flood, and the other DV beside it for the same time
                    CompletableFuture<HttpLoad.Outcome> flooding = CompletableFuture.supplyAsync(
                            () -> floodLoad.closedLoop(FLOOD_CLIENTS, segment, flood, response -> 1));
                    Thread.sleep(FLOOD_LEAD_MILLIS); // the flood is running before the other DV is measured
                    beside.get(expectContinue)
                            .add(measure(
                                    nmc,
                                    context,
                                    load,
                                    requests.single(
                                            (expectContinue ? "beside-polite-" : "beside-") + round, List.of(other)),
                                    segment.minusMillis(FLOOD_LEAD_MILLIS)));
                    floods.merge(expectContinue, flooding.get(), HttpLoad.Outcome::plus);
                    // the flood's held refusals answered and its last bulk call done before the next phase
                    Thread.sleep(1000);
                    boolean alive = nmc.alive();
                    String nmcLog = Files.readString(
                            context.outDirectory().resolve("logs").resolve("flood-1.log"));
                    oom = nmcLog.contains("java.lang.OutOfMemoryError") || !alive;
                    if (oom) {
                        break;
                    }
                }
            }
            double p99Alone = alone.outcome.latencies().percentileMillis(99);
            for (boolean expectContinue : List.of(false, true)) {
                Phase measured = beside.get(expectContinue);
                if (measured.outcome == null) {
                    continue; // the NMC was down before this variant's first round
                }
                HttpLoad.Outcome floodOutcome = floods.get(expectContinue);
                double p99Beside = measured.outcome.latencies().percentileMillis(99);
                double ratio = p99Alone == 0 ? Double.NaN : p99Beside / p99Alone;
                result.add(Figure.of(
                                "other DV's acceptance p99 under the flood"
                                        + (expectContinue ? ", its calls sent with Expect: 100-continue" : ""),
                                p99Beside,
                                "ms")
                        .baseline(p99Alone, "the same DV alone, p99 ms")
                        .target("≤ " + TARGET_RATIO + "× alone, and no OutOfMemoryError", ratio <= TARGET_RATIO && !oom)
                        .detail("outOfMemoryOrDown", oom)
                        .detail("ratio", Latencies.round(ratio))
                        .details(measured.outcome.latencies().summary("beside"))
                        .details(alone.outcome.latencies().summary("alone"))
                        .detail("besideP99MsPerRound", measured.p99PerRound)
                        .detail("aloneP99MsPerRound", alone.p99PerRound)
                        .detail("otherDvStatusesBeside", measured.outcome.statuses())
                        .detail("floodStatuses", floodOutcome.statuses())
                        .detail(
                                "floodRequestsPerSecond",
                                Latencies.round(floodOutcome.requests() / floodOutcome.seconds()))
                        .detail("floodBodyBytes", bodies.get(expectContinue).getFirst().length)
                        .detail("floodExpectContinue", expectContinue)
                        .detail("rounds", measured.p99PerRound.size())
                        .detail("secondsPerPhaseAndRound", segment.toMillis() / 1000.0)
                        .detail("cpuDuringFlood", measured.cpu)
                        .detail("cpuDuringAlone", alone.cpu)
                        .detail("nmcStagesMsBeside", AcceptanceBench.stages(measured.spans, SINGLE))
                        .detail("nmcStagesMsAlone", AcceptanceBench.stages(alone.spans, SINGLE))
                        .build());
            }
            result.note("the other DV's load generator: " + load.clientName() + " (bench.flood.http=lean|jdk); the"
                    + " flood's: " + floodLoad.clientName() + " (bench.flood.flooder-http=lean|jdk)");
            result.note("The flood's statuses: 200 a bulk the NMC took (its items accepted while the DV's quota lasts),"
                    + " 429 refused by a concurrency cap or the used-up quota (after http.refusal-delay), -1 a"
                    + " connection the client dropped (a refused call with a body still to come has its connection"
                    + " closed unread, and a client still sending may see that before the 429); with Expect:"
                    + " 100-continue the client sends no body the NMC refuses. cpuDuringFlood: the CPU seconds of the"
                    + " NMC, PostgreSQL and this harness (the flood's client and the other DV's) while the other DV"
                    + " was measured, with the kernel's interrupt work and the time the host took the CPUs for others"
                    + " (cpuSecondsStolen: several seconds of it and the run measured the host's noise as much as the"
                    + " NMC). nmcStagesMs: the NMC's own means per call (AcceptanceBench), apiRequest the other"
                    + " DV's request as the NMC's filter timed it; beside the flood the stages of a chunk's write"
                    + " (register, quotum, transactie, teruggeven) and verzegelen also count the bulk calls'. The NMC's"
                    + " log: "
                    + context.repository()
                            .relativize(context.outDirectory().resolve("logs").resolve("flood-1.log"))
                    + ", its GC log: "
                    + context.repository().relativize(gcLog));
        } finally {
            context.postgres().dropDatabase(db);
        }
    }

    /** One phase's rounds together: the other DV's calls, where the CPU went, the NMC's metrics' spans. */
    private static final class Phase {
        private HttpLoad.Outcome outcome;
        private Map<String, Object> cpu = Map.of();
        private final List<AcceptanceBench.MetricsSpan> spans = new java.util.ArrayList<>();
        private final List<Double> p99PerRound = new java.util.ArrayList<>();

        void add(Measured round) {
            outcome = outcome == null ? round.outcome() : outcome.plus(round.outcome());
            cpu = CpuMeter.sum(cpu, round.cpu());
            spans.add(round.span());
            p99PerRound.add(round.outcome().latencies().percentileMillis(99));
        }
    }

    private record Measured(HttpLoad.Outcome outcome, Map<String, Object> cpu, AcceptanceBench.MetricsSpan span) {}

    /** The other DV's calls at one client for {@code length}, with where the CPU went and the NMC's metrics. */
    private static Measured measure(
            BenchNmc nmc, BenchContext context, HttpLoad load, LongFunction<HttpRequest> calls, Duration length) {
        String metricsBefore = nmc.metrics();
        CpuMeter cpu = CpuMeter.start(nmc.pid(), context.postmasterPid());
        HttpLoad.Outcome outcome = load.closedLoop(1, length, calls, HttpLoad.Worth.status(202));
        Map<String, Object> used = cpu.stop();
        return new Measured(outcome, used, new AcceptanceBench.MetricsSpan(metricsBefore, nmc.metrics()));
    }

    /** {@code count} maximal bulk bodies as bytes, numbered from {@code first} (distinct numbers, distinct items). */
    private static List<byte[]> bodies(Requests requests, long first, int count) {
        return java.util.stream.LongStream.range(first, first + count)
                .mapToObj(i -> bulk(requests, i).getBytes(StandardCharsets.UTF_8))
                .toList();
    }

    /** A maximal bulk body: {@value #ITEMS} items of about 4 KB, new dvRefs each time (no repeats). */
    private static String bulk(Requests requests, long i) {
        StringBuilder body = new StringBuilder(ITEMS * 4_100).append("{\"notificaties\":[");
        for (int k = 0; k < ITEMS; k++) {
            String item = requests.item("flood", i * ITEMS + k);
            body.append(k == 0 ? "" : ",")
                    .append(item, 0, item.length() - 2)
                    .append(",\"tekst\":\"")
                    .append(FILL)
                    .append("\"}}");
        }
        return body.append("]}").toString();
    }
}
