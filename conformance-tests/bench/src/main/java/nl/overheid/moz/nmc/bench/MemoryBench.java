package nl.overheid.moz.nmc.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

/**
 * Benchmark 8, memory: the NMC with {@code -Xmx256m} under sustained load (acceptance at 32 clients over ten
 * DVs while the engine sends, receives and finalises with the instant parties), its GC logged with
 * {@code -Xlog:gc}. No OutOfMemoryError (the JVM exits on one), the heap after each collection and the GC
 * pauses reported.
 */
final class MemoryBench implements Benchmark {

    static final String HEAP = "256m";
    static final int CLIENTS = 32;
    private static final Pattern PAUSE = Pattern.compile(
            "\\[([0-9.]+)s\\].*GC\\(\\d+\\) (Pause [^0-9]*?) ?(\\d+)M->(\\d+)M\\((\\d+)M\\) ([0-9.]+)ms");

    @Override
    public String name() {
        return "memory";
    }

    @Override
    public String measures() {
        return "the NMC's heap with -Xmx" + HEAP + " under sustained load (acceptance at " + CLIENTS + " clients over"
                + " 10 DVs with the engine draining through the instant parties): OutOfMemoryError or not, heap after"
                + " GC and GC pauses from -Xlog:gc";
    }

    @Override
    public void run(BenchContext context, BenchmarkResult result) throws Exception {
        Duration duration = context.pointDuration().multipliedBy(context.quick() ? 3 : 5);
        String db = context.postgres().freshDatabase("bench_memory");
        Path gcLog = context.outDirectory().resolve("logs").resolve("memory-gc.log");
        Files.createDirectories(gcLog.getParent());
        Files.deleteIfExists(gcLog);
        BenchNmc.Options options = EngineBench.engineOptions(db)
                // the heap fixed at its maximum, as the image starts it (-XX:InitialRAMPercentage = MaxRAMPercentage)
                .jvm(
                        "-Xmx" + HEAP,
                        "-Xms" + HEAP,
                        "-XX:+ExitOnOutOfMemoryError",
                        "-Xlog:gc:file=" + gcLog + ":uptime,level,tags");
        List<String> oins = IntStream.rangeClosed(1, BenchContext.NMC_DVS)
                .mapToObj(BenchContext::nmcOin)
                .toList();
        try {
            HttpLoad.Outcome load;
            boolean alive;
            long peakRssKb;
            try (BenchNmc nmc = BenchNmc.start(context, "memory", options);
                    HttpLoad http = new HttpLoad()) {
                load = http.closedLoop(
                        CLIENTS,
                        duration,
                        new Requests(nmc.baseUrl())
                                .single(
                                        "memory",
                                        oins.stream().map(context::token).toList()),
                        HttpLoad.Worth.status(202));
                Thread.sleep(3000);
                alive = nmc.alive();
                peakRssKb = peakRss(nmc.pid());
            }
            String nmcLog =
                    Files.readString(context.outDirectory().resolve("logs").resolve("memory-1.log"));
            boolean oom = nmcLog.contains("java.lang.OutOfMemoryError") || !alive;
            List<double[]> pauses = new ArrayList<>(); // uptime s, before MB, after MB, heap MB, pause ms
            for (String line : Files.readAllLines(gcLog)) {
                Matcher m = PAUSE.matcher(line);
                if (m.find()) {
                    pauses.add(new double[] {
                        Double.parseDouble(m.group(1)),
                        Double.parseDouble(m.group(3)),
                        Double.parseDouble(m.group(4)),
                        Double.parseDouble(m.group(5)),
                        Double.parseDouble(m.group(6))
                    });
                }
            }
            double maxAfter = pauses.stream().mapToDouble(p -> p[2]).max().orElse(0);
            double maxPause = pauses.stream().mapToDouble(p -> p[4]).max().orElse(0);
            double totalPause = pauses.stream().mapToDouble(p -> p[4]).sum();
            Latencies pauseHistogram = new Latencies();
            pauses.forEach(p -> pauseHistogram.recordMicros((long) (p[4] * 1000)));
            long completed =
                    new Lifecycles(context.postgres(), db).statuses(oins).getOrDefault("definitief-bezorgd", 0L);
            result.add(Figure.of("largest heap after a GC", maxAfter, "MB")
                    .baseline(Integer.parseInt(HEAP.replace("m", "")), "-Xmx, MB")
                    .target("no OutOfMemoryError", !oom)
                    .detail("gcPauses", pauses.size())
                    .detail("loadSeconds", duration.toSeconds())
                    .detail("acceptedPerSecond", Latencies.round(load.okPerSecond()))
                    .detail("acceptanceStatuses", load.statuses())
                    .detail("completedDuringTheRun", completed)
                    .detail("peakRssMb", peakRssKb / 1024)
                    .build());
            result.add(Figure.of("longest GC pause", maxPause, "ms")
                    .details(pauseHistogram.summary("pause"))
                    .detail("totalPauseMs", Latencies.round(totalPause))
                    .detail("pauseShareOfRun", Latencies.round(totalPause / 1000 / duration.toSeconds()))
                    .build());
            result.note("GC log: " + context.repository().relativize(gcLog) + "; the NMC's log: "
                    + context.repository()
                            .relativize(context.outDirectory().resolve("logs").resolve("memory-1.log")));
        } finally {
            context.postgres().dropDatabase(db);
        }
    }

    /** VmHWM of the process in kB (its peak resident set), or -1. */
    private static long peakRss(long pid) {
        try {
            return Files.readAllLines(Path.of("/proc", Long.toString(pid), "status")).stream()
                    .filter(line -> line.startsWith("VmHWM:"))
                    .map(line -> line.replaceAll("[^0-9]", ""))
                    .mapToLong(Long::parseLong)
                    .findFirst()
                    .orElse(-1);
        } catch (java.io.IOException | RuntimeException e) {
            return -1;
        }
    }
}
