package nl.overheid.moz.nmc.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The data map {@code sql/data-map.yaml} as records, read strictly (an unknown key is an error, so a typo cannot
 * silently drop a classification), and rendered as {@code sql/DATA-MAP.md}.
 */
record DataMap(String intro, Map<String, String> personalClasses, Map<String, Rule> rules, List<Table> tables) {

    static final Path YAML = Path.of("sql", "data-map.yaml");
    static final Path MARKDOWN = Path.of("sql", "DATA-MAP.md");

    /** The classes of {@code personal}; {@code clear} exists to be named and refused. */
    static final Set<String> CLASSES = Set.of("none", "pseudonymous", "encrypted", "clear");

    record Rule(String id, String text, String setting, boolean planned) {}

    record Table(String name, String purpose, String retention, String since, List<Column> columns) {}

    /** A column; {@code retention} and {@code since} are the column's own or else its table's. */
    record Column(String table, String name, String purpose, String personal, String retention, String since) {

        String qualified() {
            return table + "." + name;
        }
    }

    static DataMap read(Path file) {
        JsonNode root;
        try {
            root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
        keys(root, "the map", Set.of("intro", "personal", "retention", "tables"));
        Map<String, String> classes = new LinkedHashMap<>();
        root.path("personal")
                .properties()
                .forEach(e -> classes.put(e.getKey(), e.getValue().asText()));
        Map<String, Rule> rules = new LinkedHashMap<>();
        root.path("retention").properties().forEach(e -> {
            JsonNode rule = e.getValue();
            keys(rule, "retention rule " + e.getKey(), Set.of("rule", "setting", "planned"));
            rules.put(
                    e.getKey(),
                    new Rule(
                            e.getKey(),
                            text(rule, "rule"),
                            optional(rule, "setting"),
                            rule.path("planned").asBoolean(false)));
        });
        List<Table> tables = new ArrayList<>();
        root.path("tables").properties().forEach(t -> {
            String name = t.getKey();
            JsonNode table = t.getValue();
            keys(table, "table " + name, Set.of("purpose", "retention", "since", "columns"));
            String since = optional(table, "since");
            List<Column> columns = new ArrayList<>();
            table.path("columns").properties().forEach(c -> {
                JsonNode column = c.getValue();
                keys(column, name + "." + c.getKey(), Set.of("purpose", "personal", "retention", "since"));
                columns.add(new Column(
                        name,
                        c.getKey(),
                        text(column, "purpose"),
                        text(column, "personal"),
                        optional(column, "retention") != null
                                ? optional(column, "retention")
                                : optional(table, "retention"),
                        optional(column, "since") != null ? optional(column, "since") : since));
            });
            tables.add(new Table(name, text(table, "purpose"), optional(table, "retention"), since, columns));
        });
        return new DataMap(root.path("intro").asText().strip(), classes, rules, tables);
    }

    List<Column> columns() {
        return tables.stream().flatMap(t -> t.columns().stream()).toList();
    }

    /** The Markdown view of the map: the intro, the classes, the rules and a table of columns per table. */
    String markdown() {
        StringBuilder md = new StringBuilder();
        md.append(
                "<!-- Rendered from data-map.yaml by DataMapTest (-Dnmc.datamap.render=true); edit the YAML. -->\n\n");
        md.append("# Data map\n\n").append(intro).append("\n\n## Personal data\n\n| class | meaning |\n|---|---|\n");
        personalClasses.forEach((name, meaning) ->
                md.append("| `").append(name).append("` | ").append(meaning).append(" |\n"));
        md.append("\n## Retention rules\n\n| rule | what removes or erases it | setting |\n|---|---|---|\n");
        rules.values()
                .forEach(rule -> md.append("| `")
                        .append(rule.id())
                        .append("` | ")
                        .append(rule.planned() ? "*(not built yet)* " : "")
                        .append(rule.text())
                        .append(" | ")
                        .append(rule.setting() == null ? "" : "`" + rule.setting() + "`")
                        .append(" |\n"));
        for (Table table : tables) {
            md.append("\n## `")
                    .append(table.name())
                    .append("`\n\n")
                    .append(Character.toUpperCase(table.purpose().charAt(0)))
                    .append(table.purpose().substring(1));
            if (table.since() != null) {
                md.append(" (from ").append(table.since()).append(")");
            }
            md.append(". Retention: `")
                    .append(table.retention())
                    .append("`.\n\n")
                    .append("| column | personal data | retention | purpose |\n|---|---|---|---|\n");
            for (Column column : table.columns()) {
                md.append("| `")
                        .append(column.name())
                        .append("` | ")
                        .append(column.personal())
                        .append(" | `")
                        .append(column.retention())
                        .append("` | ")
                        .append(column.purpose());
                if (column.since() != null && table.since() == null) {
                    md.append(" (from ").append(column.since()).append(")");
                }
                md.append(" |\n");
            }
        }
        return md.toString();
    }

    /** The repository root: the first directory upwards from here that holds the map. */
    static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve(YAML))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "cannot find " + YAML + " above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    private static void keys(JsonNode node, String what, Set<String> allowed) {
        if (!node.isObject()) {
            throw new IllegalArgumentException(what + " must be a mapping");
        }
        node.fieldNames().forEachRemaining(key -> {
            if (!allowed.contains(key)) {
                throw new IllegalArgumentException(what + ": unknown key '" + key + "' (allowed: " + allowed + ")");
            }
        });
    }

    private static String text(JsonNode node, String key) {
        String value = optional(node, key);
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("'" + key + "' missing in " + node);
        }
        return value;
    }

    private static String optional(JsonNode node, String key) {
        JsonNode value = node.get(key);
        return value == null || value.isNull() ? null : value.asText().strip();
    }
}
