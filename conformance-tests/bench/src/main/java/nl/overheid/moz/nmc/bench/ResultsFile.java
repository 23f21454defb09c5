package nl.overheid.moz.nmc.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The run's results: {@code results.json} (machine, date, every figure with its baseline, ratio, target
 * and details) and {@code results.md} (the same as a table, for conformance-tests/TESTING.md). Rewritten after every
 * benchmark, so an interrupted run keeps what it measured.
 */
final class ResultsFile {

    private final Path json;
    private final Path markdown;
    private final Map<String, Object> machine;
    private final List<BenchmarkResult> results = new ArrayList<>();
    private final ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    ResultsFile(Path directory, Map<String, Object> machine) {
        this.json = directory.resolve("results.json");
        this.markdown = directory.resolve("results.md");
        this.machine = machine;
    }

    void add(BenchmarkResult result) throws IOException {
        results.add(result);
        write();
    }

    Path json() {
        return json;
    }

    Path markdown() {
        return markdown;
    }

    private void write() throws IOException {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("machine", machine);
        List<Map<String, Object>> benchmarks = new ArrayList<>();
        for (BenchmarkResult result : results) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("name", result.name());
            entry.put("measures", result.measures());
            entry.put("status", result.status().name().toLowerCase(Locale.ROOT).replace('_', ' '));
            entry.put("seconds", Latencies.round(result.seconds()));
            entry.put("figures", result.figures());
            entry.put("notes", result.notes());
            benchmarks.add(entry);
        }
        document.put("benchmarks", benchmarks);
        Files.writeString(json, mapper.writeValueAsString(document) + "\n");
        Files.writeString(markdown, table());
    }

    private String table() {
        StringBuilder md = new StringBuilder();
        md.append("# NMC benchmark results\n\n");
        md.append("Machine: ")
                .append(machine.get("cores"))
                .append(" cores, ")
                .append(machine.get("cpu"))
                .append("; ")
                .append(machine.get("postgres"))
                .append(" (")
                .append(machine.get("postgresDurability"))
                .append("; ")
                .append(machine.get("pgbench"))
                .append("); Java ")
                .append(machine.get("java"))
                .append("; ")
                .append(machine.get("date"))
                .append("; commit ")
                .append(machine.get("commit"))
                .append("; load average at start ")
                .append(machine.get("loadAverageAtStart"))
                .append(quickNote())
                .append(".\n\n");
        md.append("| benchmark | figure | NMC | baseline | ratio | target | met |\n");
        md.append("|---|---|---|---|---|---|---|\n");
        for (BenchmarkResult result : results) {
            if (result.status() != BenchmarkResult.Status.OK) {
                md.append("| ")
                        .append(result.name())
                        .append(" | — | ")
                        .append(result.status().name().toLowerCase(Locale.ROOT).replace('_', ' '))
                        .append(" | | | | |\n");
                continue;
            }
            for (Figure figure : result.figures()) {
                md.append("| ")
                        .append(result.name())
                        .append(" | ")
                        .append(figure.name())
                        .append(" | ")
                        .append(number(figure.value()))
                        .append(' ')
                        .append(figure.unit())
                        .append(" | ")
                        .append(
                                figure.baseline() == null
                                        ? ""
                                        : number(figure.baseline()) + " (" + figure.baselineName() + ")")
                        .append(" | ")
                        .append(figure.ratio() == null ? "" : String.format(Locale.ROOT, "%.2f", figure.ratio()))
                        .append(" | ")
                        .append(figure.target() == null ? "" : figure.target())
                        .append(" | ")
                        .append(figure.met() == null ? "" : figure.met() ? "yes" : "**no**")
                        .append(" |\n");
            }
        }
        md.append('\n');
        for (BenchmarkResult result : results) {
            md.append("**")
                    .append(result.name())
                    .append("** (")
                    .append(String.format(Locale.ROOT, "%.0f s", result.seconds()))
                    .append("): ")
                    .append(result.measures())
                    .append('\n');
            for (String note : result.notes()) {
                md.append("- ").append(note).append('\n');
            }
            md.append('\n');
        }
        return md.toString();
    }

    private String quickNote() {
        return Boolean.TRUE.equals(machine.get("quick")) ? "; QUICK run (harness check, figures not meaningful)" : "";
    }

    private static String number(Double value) {
        if (value == null) {
            return "";
        }
        double v = value;
        if (Math.abs(v) >= 100) {
            return String.format(Locale.ROOT, "%,.0f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }
}
