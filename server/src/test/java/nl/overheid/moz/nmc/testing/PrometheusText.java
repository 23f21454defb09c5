package nl.overheid.moz.nmc.testing;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * A strict parser of the Prometheus text exposition format (0.0.4): {@code # HELP}, {@code # TYPE} and sample lines
 * {@code name{label="value",…} value [timestamp]} with the format's escapes. Written for the tests because the
 * Prometheus Java client writes this format but ships no parser. Anything malformed throws, naming the line.
 */
public record PrometheusText(Map<String, String> types, List<Sample> samples) {

    /** One sample: its metric name, labels and value. */
    public record Sample(String name, Map<String, String> labels, double value) {}

    public static PrometheusText parse(String text) {
        Map<String, String> types = new LinkedHashMap<>();
        List<Sample> samples = new ArrayList<>();
        int number = 0;
        for (String line : text.split("\n", -1)) {
            number++;
            if (line.isBlank()) {
                continue;
            }
            try {
                if (line.startsWith("# TYPE ")) {
                    String[] parts = line.substring(7).split(" ");
                    if (parts.length != 2
                            || !parts[0].matches("[a-zA-Z_:][a-zA-Z0-9_:]*")
                            || !List.of("counter", "gauge", "histogram", "summary", "untyped")
                                    .contains(parts[1])) {
                        throw new IllegalArgumentException("bad TYPE");
                    }
                    if (types.put(parts[0], parts[1]) != null) {
                        throw new IllegalArgumentException("second TYPE for " + parts[0]);
                    }
                } else if (line.startsWith("#")) {
                    continue; // HELP and comments
                } else {
                    samples.add(sample(line));
                }
            } catch (RuntimeException e) {
                throw new IllegalArgumentException(
                        "line " + number + " is not Prometheus text (" + e.getMessage() + "): " + line, e);
            }
        }
        for (Sample sample : samples) {
            if (family(types, sample.name()).isEmpty()) {
                throw new IllegalArgumentException("sample without a TYPE: " + sample.name());
            }
        }
        return new PrometheusText(types, samples);
    }

    private static Sample sample(String line) {
        int i = 0;
        while (i < line.length()
                && (Character.isLetterOrDigit(line.charAt(i)) || line.charAt(i) == '_' || line.charAt(i) == ':')) {
            i++;
        }
        String name = line.substring(0, i);
        if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
            throw new IllegalArgumentException("bad metric name");
        }
        Map<String, String> labels = new LinkedHashMap<>();
        if (i < line.length() && line.charAt(i) == '{') {
            i++;
            while (line.charAt(i) != '}') {
                int eq = line.indexOf('=', i);
                String label = line.substring(i, eq);
                if (!label.matches("[a-zA-Z_][a-zA-Z0-9_]*") || line.charAt(eq + 1) != '"') {
                    throw new IllegalArgumentException("bad label " + label);
                }
                StringBuilder value = new StringBuilder();
                int j = eq + 2;
                for (; line.charAt(j) != '"'; j++) {
                    char c = line.charAt(j);
                    if (c == '\\') {
                        char next = line.charAt(++j);
                        value.append(
                                switch (next) {
                                    case 'n' -> '\n';
                                    case '\\' -> '\\';
                                    case '"' -> '"';
                                    default -> throw new IllegalArgumentException("bad escape \\" + next);
                                });
                    } else {
                        value.append(c);
                    }
                }
                if (labels.put(label, value.toString()) != null) {
                    throw new IllegalArgumentException("label twice: " + label);
                }
                i = j + 1;
                if (line.charAt(i) == ',') {
                    i++;
                } else if (line.charAt(i) != '}') {
                    throw new IllegalArgumentException("expected , or }");
                }
            }
            i++;
        }
        if (line.charAt(i) != ' ') {
            throw new IllegalArgumentException("expected a space before the value");
        }
        String[] rest = line.substring(i + 1).trim().split(" ");
        if (rest.length > 2) {
            throw new IllegalArgumentException("trailing text");
        }
        if (rest.length == 2) {
            Long.parseLong(rest[1]);
        }
        return new Sample(name, Map.copyOf(labels), value(rest[0]));
    }

    private static double value(String text) {
        return switch (text) {
            case "+Inf" -> Double.POSITIVE_INFINITY;
            case "-Inf" -> Double.NEGATIVE_INFINITY;
            case "NaN" -> Double.NaN;
            default -> Double.parseDouble(text);
        };
    }

    /** The family (TYPE name) a sample belongs to: itself, or without a histogram/summary/counter suffix. */
    private static Optional<String> family(Map<String, String> types, String name) {
        if (types.containsKey(name)) {
            return Optional.of(name);
        }
        for (String suffix : List.of("_bucket", "_count", "_sum", "_total", "_created", "_max")) {
            if (name.endsWith(suffix) && types.containsKey(name.substring(0, name.length() - suffix.length()))) {
                return Optional.of(name.substring(0, name.length() - suffix.length()));
            }
        }
        return Optional.empty();
    }

    /** The samples of one metric name whose labels include {@code labels}. */
    public List<Sample> find(String name, Map<String, String> labels) {
        Predicate<Sample> match = sample -> sample.name().equals(name)
                && labels.entrySet().stream()
                        .allMatch(e -> e.getValue().equals(sample.labels().get(e.getKey())));
        return samples.stream().filter(match).toList();
    }

    /** The value of the one sample of {@code name} with {@code labels}; 0 when there is none (a counter not yet used). */
    public double value(String name, Map<String, String> labels) {
        List<Sample> found = find(name, labels);
        if (found.size() > 1) {
            throw new IllegalStateException(found.size() + " samples of " + name + " match " + labels);
        }
        return found.isEmpty() ? 0 : found.getFirst().value();
    }

    /** The value of the one sample of {@code name} with {@code labels}, which must exist. */
    public double require(String name, Map<String, String> labels) {
        List<Sample> found = find(name, labels);
        if (found.size() != 1) {
            throw new AssertionError(found.size() + " samples of " + name + " match " + labels);
        }
        return found.getFirst().value();
    }
}
