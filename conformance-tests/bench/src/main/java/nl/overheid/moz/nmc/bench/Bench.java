package nl.overheid.moz.nmc.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The benchmark harness ({@code scripts/bench}): runs the selected benchmarks one after the other, each on
 * a database of its own in the same PostgreSQL cluster and each beside a baseline measured in the same run,
 * and writes {@code target/bench/results.json} and {@code results.md}. Never part of the test suite.
 *
 * <p>Arguments: the names of the benchmarks to run (default: all). System properties, set by
 * {@code scripts/bench}: {@code bench.repo}, {@code bench.pg.port} (and {@code .host}, {@code .user},
 * {@code .password}), {@code bench.pg.data} (for the CPU split), {@code bench.pgbench}, {@code bench.seconds}
 * (per measured point, default 8) and {@code bench.quick} (short runs that check the harness).
 */
public final class Bench {

    private static final List<Benchmark> ALL = List.of(
            new AcceptanceBench(),
            new BulkBench(),
            new EngineBench(),
            new BudgetBench(),
            new FairnessBench(),
            new FeedBench(),
            new StorageBench(),
            new MemoryBench(),
            new FloodBench());

    private Bench() {}

    public static void main(String[] args) throws IOException {
        List<Benchmark> selected = select(args);
        Path repository = Path.of(property("bench.repo", ".")).toAbsolutePath().normalize();
        Path out = repository.resolve("target/bench");
        Files.createDirectories(out);
        boolean quick = Boolean.parseBoolean(property("bench.quick", "false"));
        Duration point = Duration.ofSeconds(Long.parseLong(property("bench.seconds", quick ? "3" : "8")));
        Postgres postgres = new Postgres(
                property("bench.pg.host", "127.0.0.1"),
                Integer.parseInt(required("bench.pg.port")),
                property("bench.pg.user", "nmc"),
                property("bench.pg.password", "nmc"));
        String data = System.getProperty("bench.pg.data");
        BenchContext context = new BenchContext(
                repository,
                out,
                postgres,
                Path.of(required("bench.pgbench")),
                data == null || data.isBlank() ? null : Path.of(data),
                quick,
                point,
                property("bench.ldv.user", "ldv"),
                property("bench.ldv.password", "ldv"));

        Map<String, Object> machine = machine(context);
        ResultsFile results = new ResultsFile(out, machine);
        say("== machine: " + machine);
        for (Benchmark benchmark : selected) {
            BenchmarkResult result = new BenchmarkResult(benchmark.name(), benchmark.measures());
            say("== " + benchmark.name() + ": " + benchmark.measures());
            long start = System.nanoTime();
            try {
                benchmark.run(context, result);
            } catch (Exception | AssertionError e) {
                result.status(BenchmarkResult.Status.FAILED).note("failed: " + e);
                say("   FAILED: " + e);
                e.printStackTrace(System.err);
            }
            result.seconds((System.nanoTime() - start) / 1e9);
            for (Figure figure : result.figures()) {
                say("   " + figure.name() + ": " + figure.value() + " " + figure.unit()
                        + (figure.baseline() == null
                                ? ""
                                : " | baseline " + figure.baseline() + " (" + figure.baselineName() + ")")
                        + (figure.ratio() == null
                                ? ""
                                : String.format(java.util.Locale.ROOT, " | ratio %.2f", figure.ratio()))
                        + (figure.target() == null
                                ? ""
                                : " | target " + figure.target() + ": " + (figure.met() ? "met" : "NOT met")));
            }
            result.notes().forEach(note -> say("   note: " + note));
            machine.put("loadAverageAtEnd", loadAverage());
            results.add(result);
        }
        say("== results: " + results.json() + " and " + results.markdown());
    }

    private static List<Benchmark> select(String[] args) {
        if (args.length == 0) {
            return ALL;
        }
        List<Benchmark> selected = new ArrayList<>();
        for (String name : args) {
            selected.add(ALL.stream()
                    .filter(b -> b.name().equals(name))
                    .findFirst()
                    .orElseThrow(() -> new IllegalArgumentException("no benchmark '" + name + "'; there are: "
                            + ALL.stream().map(Benchmark::name).toList())));
        }
        return selected;
    }

    private static Map<String, Object> machine(BenchContext context) {
        Map<String, Object> machine = new LinkedHashMap<>();
        machine.put("cores", Runtime.getRuntime().availableProcessors());
        machine.put("cpu", cpuModel());
        machine.put("memoryGb", memoryGb());
        machine.put("postgres", context.postgres().version());
        machine.put("postgresDurability", context.postgres().durability());
        machine.put("pgbench", context.pgbench().version());
        machine.put("java", System.getProperty("java.runtime.version"));
        machine.put(
                "date",
                OffsetDateTime.now(ZoneOffset.UTC)
                        .truncatedTo(ChronoUnit.SECONDS)
                        .toString());
        machine.put("commit", property("bench.commit", "unknown"));
        machine.put("quick", context.quick());
        machine.put("secondsPerPoint", context.pointDuration().toSeconds());
        machine.put("loadAverageAtStart", loadAverage());
        return machine;
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
                    .filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim())
                    .findFirst()
                    .orElse("unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    private static long memoryGb() {
        try {
            String total =
                    Files.readAllLines(Path.of("/proc/meminfo")).getFirst().replaceAll("[^0-9]", "");
            return Math.round(Long.parseLong(total) / 1024.0 / 1024.0);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** The 1-minute load average: how busy the machine was besides the benchmark (noise). */
    static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg"), StandardCharsets.US_ASCII)
                    .split(" ")[0];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    private static String property(String key, String fallback) {
        String value = System.getProperty(key);
        return value == null || value.isBlank() ? fallback : value;
    }

    private static String required(String key) {
        String value = System.getProperty(key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("system property " + key + " is required (scripts/bench sets it)");
        }
        return value;
    }

    static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }
}
