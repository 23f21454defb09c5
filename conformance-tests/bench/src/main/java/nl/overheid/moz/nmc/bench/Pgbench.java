package nl.overheid.moz.nmc.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Runs {@code pgbench} against a benchmark database: the baseline each figure stands beside. Prepared
 * statements ({@code -M prepared}, as the NMC's JDBC driver prepares its repeated statements), no vacuum,
 * and every transaction logged ({@code -l}) so the baseline has the same percentiles as the NMC's figure.
 */
public final class Pgbench {

    private static final Pattern TPS = Pattern.compile("tps = ([0-9.]+) \\(without initial connection time\\)");
    private static final Pattern PROCESSED = Pattern.compile("number of transactions actually processed: (\\d+)");
    private static final Pattern FAILED = Pattern.compile("number of failed transactions: (\\d+)");

    /**
     * A pgbench run.
     *
     * @param tps          script executions per second, without the connection time
     * @param transactions script executions
     * @param failed       failed script executions
     * @param latencies    per script execution (plus the schedule lag when throttled)
     */
    public record Run(double tps, long transactions, long failed, Latencies latencies, String output) {}

    private final Path executable;
    private final Postgres postgres;
    private final Path workDirectory;

    public Pgbench(Path executable, Postgres postgres, Path workDirectory) {
        this.executable = executable;
        this.postgres = postgres;
        this.workDirectory = workDirectory;
    }

    public Path executable() {
        return executable;
    }

    /** {@code pgbench (PostgreSQL) 15.x …}. */
    public String version() {
        try {
            Process process = new ProcessBuilder(executable.toString(), "--version")
                    .redirectErrorStream(true)
                    .start();
            String text = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            process.waitFor();
            return text;
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }

    /**
     * Writes a script from a template under {@code bench/} on the class path, with {@code ${KEY}} replaced.
     */
    public Path script(String template, String name, Map<String, String> values) {
        String text = Resources.text(template);
        for (Map.Entry<String, String> value : values.entrySet()) {
            text = text.replace("${" + value.getKey() + "}", value.getValue());
        }
        try {
            Files.createDirectories(workDirectory);
            Path script = workDirectory.resolve(name);
            Files.writeString(script, text);
            return script;
        } catch (IOException e) {
            throw new IllegalStateException("cannot write pgbench script " + name, e);
        }
    }

    /** Runs for {@code duration} ({@code -T}); pgbench picks one of {@code scripts} per transaction. */
    public Run forDuration(String label, String database, List<Path> scripts, int clients, Duration duration) {
        return run(label, database, scripts, clients, List.of("-T", Long.toString(Math.max(1, duration.toSeconds()))));
    }

    /** Runs {@code perClient} transactions per client ({@code -t}). */
    public Run forTransactions(String label, String database, List<Path> scripts, int clients, long perClient) {
        return run(label, database, scripts, clients, List.of("-t", Long.toString(perClient)));
    }

    /** Runs for {@code duration} at {@code rate} transactions per second in total ({@code -R}). */
    public Run throttled(
            String label, String database, List<Path> scripts, int clients, Duration duration, double rate) {
        return run(
                label,
                database,
                scripts,
                clients,
                List.of(
                        "-T",
                        Long.toString(Math.max(1, duration.toSeconds())),
                        "-R",
                        String.format(java.util.Locale.ROOT, "%.1f", rate)));
    }

    private Run run(String label, String database, List<Path> scripts, int clients, List<String> extra) {
        try {
            Files.createDirectories(workDirectory);
            String prefix = "pgbench-log-" + label;
            try (Stream<Path> old = Files.list(workDirectory)) {
                for (Path file : old.filter(p -> p.getFileName().toString().startsWith(prefix + "."))
                        .toList()) {
                    Files.delete(file);
                }
            }
            List<String> command = new ArrayList<>(List.of(
                    executable.toString(),
                    "-n",
                    "-M",
                    "prepared",
                    "-h",
                    postgres.host(),
                    "-p",
                    Integer.toString(postgres.port()),
                    "-U",
                    postgres.user(),
                    "-c",
                    Integer.toString(clients),
                    "-j",
                    Integer.toString(Math.min(clients, 2)),
                    "-l",
                    "--log-prefix=" + prefix));
            command.addAll(extra);
            for (Path script : scripts) {
                command.add("-f");
                command.add(script.toString());
            }
            command.add(database);
            ProcessBuilder builder = new ProcessBuilder(command)
                    .directory(workDirectory.toFile())
                    .redirectErrorStream(true);
            builder.environment().put("PGPASSWORD", postgres.password());
            builder.environment().put("PGOPTIONS", "-c statement_timeout=0 -c transaction_timeout=0");
            Process process = builder.start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            int exit = process.waitFor();
            Files.writeString(
                    workDirectory.resolve("pgbench-" + label + ".out"), String.join(" ", command) + "\n\n" + output);
            Matcher tps = TPS.matcher(output);
            if (exit != 0 || !tps.find()) {
                throw new IllegalStateException("pgbench " + label + " failed (exit " + exit + "): " + tail(output));
            }
            Latencies latencies = readLogs(prefix);
            return new Run(
                    Double.parseDouble(tps.group(1)), find(PROCESSED, output), find(FAILED, output), latencies, output);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run pgbench " + label, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Per-transaction log lines: {@code client_id transaction_no time script_no time_epoch time_us
     * [schedule_lag]}; time and lag in microseconds. Failed transactions log {@code failed} as time.
     */
    private Latencies readLogs(String prefix) throws IOException {
        Latencies latencies = new Latencies();
        try (Stream<Path> files = Files.list(workDirectory)) {
            for (Path file : files.filter(p -> p.getFileName().toString().startsWith(prefix + "."))
                    .toList()) {
                try (Stream<String> lines = Files.lines(file)) {
                    lines.forEach(line -> {
                        String[] fields = line.split(" ");
                        if (fields.length >= 6 && fields[2].chars().allMatch(Character::isDigit)) {
                            long micros = Long.parseLong(fields[2]);
                            if (fields.length >= 7 && fields[6].chars().allMatch(Character::isDigit)) {
                                micros += Long.parseLong(fields[6]);
                            }
                            latencies.recordMicros(micros);
                        }
                    });
                }
                Files.delete(file);
            }
        }
        return latencies;
    }

    private static long find(Pattern pattern, String output) {
        Matcher matcher = pattern.matcher(output);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : 0;
    }

    private static String tail(String output) {
        String[] lines = output.strip().split("\n");
        return String.join("\n", java.util.Arrays.copyOfRange(lines, Math.max(0, lines.length - 12), lines.length));
    }
}
