package nl.overheid.moz.nmc.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The data map ({@code sql/data-map.yaml}) against the live schema after all migrations: every column of every
 * table has an entry and every entry a column; the columns that hold personal data are classed as such; every
 * retention rule named exists (and, once built, its setting); and {@code sql/DATA-MAP.md} is its rendering.
 * Entries marked {@code since: VN} wait until VN is applied, so a migration made on another branch can be mapped
 * before it lands; from then on they are held to the schema like the rest.
 */
class DataMapTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final Path ROOT = DataMap.repositoryRoot();
    private static final DataMap MAP = DataMap.read(ROOT.resolve(DataMap.YAML));

    /**
     * Personal data the design names (§9), written here independently of the map so that the two must agree:
     * the identifiers of a notification that the DV, NotifyNL or the LDV can link to a person, and the data
     * subject's pseudonym. Columns ending in {@code _hmac} or {@code _versleuteld}, and references to a
     * pseudonymous key, are found by rule.
     */
    private static final Set<String> KNOWN_PSEUDONYMOUS = Set.of(
            "notificatie.id",
            "notificatie.trace_id",
            "notificatie.ldv_betrokkene",
            "poging.id",
            "poging.notify_id",
            "poging.duplicaat_notify_ids",
            "ontvangst.notify_id",
            "event.notificatie",
            "taak.trace_id");

    /** table.column → data type, partitions folded into their root, Flyway's history left out. */
    private static Map<String, String> schema;

    private static Set<String> appliedVersions;

    @BeforeAll
    static void readTheSchema() throws SQLException {
        schema = new LinkedHashMap<>();
        appliedVersions = new HashSet<>();
        try (Connection c = DB.connect();
                Statement s = c.createStatement()) {
            try (ResultSet rows = s.executeQuery("""
                    SELECT DISTINCT r.relname AS tabel, c.column_name, c.data_type, c.ordinal_position
                      FROM information_schema.columns c
                      JOIN pg_class k ON k.oid = to_regclass(format('%I.%I', c.table_schema, c.table_name))
                      JOIN pg_class r ON r.oid = coalesce(pg_partition_root(k.oid), k.oid)
                     WHERE c.table_schema = 'public' AND k.relkind IN ('r', 'p')
                       AND c.table_name <> 'flyway_schema_history'
                     ORDER BY r.relname, c.ordinal_position
                    """)) {
                while (rows.next()) {
                    schema.put(rows.getString(1) + "." + rows.getString(2), rows.getString(3));
                }
            }
            try (ResultSet rows =
                    s.executeQuery("SELECT version FROM flyway_schema_history WHERE success AND version IS NOT NULL")) {
                while (rows.next()) {
                    appliedVersions.add("V" + rows.getString(1));
                }
            }
        }
    }

    @Test
    void everyColumnOfTheSchemaHasAnEntryAndEveryEntryAColumn() {
        List<String> problems = new ArrayList<>();
        Set<String> mapped = new LinkedHashSet<>();
        List<String> waiting = new ArrayList<>();
        for (DataMap.Column column : MAP.columns()) {
            mapped.add(column.qualified());
            if (schema.containsKey(column.qualified())) {
                continue;
            }
            if (column.since() != null && !appliedVersions.contains(column.since())) {
                waiting.add(column.qualified() + " (" + column.since() + ")");
            } else {
                problems.add("entry " + column.qualified() + " has no column in the schema"
                        + (column.since() == null ? "" : " although " + column.since() + " is applied"));
            }
        }
        for (String column : schema.keySet()) {
            if (!mapped.contains(column)) {
                problems.add("column " + column + " (" + schema.get(column) + ") has no entry in " + DataMap.YAML);
            }
        }
        if (!waiting.isEmpty()) {
            System.out.println("DATA-MAP: entries waiting for their migration: " + String.join(", ", waiting));
        }
        assertThat(problems).as("the data map against the schema").isEmpty();
    }

    @Test
    void theColumnsThatHoldPersonalDataAreClassedAsSuchAndNoneInTheClear() throws SQLException {
        Map<String, String> classes =
                MAP.columns().stream().collect(Collectors.toMap(DataMap.Column::qualified, DataMap.Column::personal));
        List<String> problems = new ArrayList<>();
        classes.forEach((column, personal) -> {
            if (!DataMap.CLASSES.contains(personal)) {
                problems.add(column + ": unknown class '" + personal + "' (" + DataMap.CLASSES + ")");
            } else if (personal.equals("clear")) {
                problems.add(column + " holds personal data in the clear");
            }
        });
        for (String column : schema.keySet()) {
            String personal = classes.getOrDefault(column, "(no entry)");
            if (column.endsWith("_versleuteld") && !personal.equals("encrypted")) {
                problems.add(column + " is ciphertext of personal data, classed " + personal);
            }
            if (personal.equals("encrypted") && !schema.get(column).equals("bytea")) {
                problems.add(column + " is classed encrypted but is " + schema.get(column) + ", not ciphertext");
            }
            if ((column.endsWith("_hmac") || KNOWN_PSEUDONYMOUS.contains(column)) && !personal.equals("pseudonymous")) {
                problems.add(column + " is pseudonymous personal data, classed " + personal);
            }
        }
        // A reference to a pseudonymous key stands for the same person.
        for (String[] reference : references()) {
            if (classes.getOrDefault(reference[1], "none").equals("pseudonymous")
                    && !classes.getOrDefault(reference[0], "(no entry)").equals("pseudonymous")) {
                problems.add(reference[0] + " refers to the pseudonymous " + reference[1] + ", classed "
                        + classes.getOrDefault(reference[0], "(no entry)"));
            }
        }
        assertThat(problems).as("the classes of personal data").isEmpty();
    }

    @Test
    void everyRetentionRuleNamedExistsAndABuiltOnesSettingHasADefault() throws IOException {
        List<String> problems = new ArrayList<>();
        for (DataMap.Column column : MAP.columns()) {
            if (column.retention() == null || !MAP.rules().containsKey(column.retention())) {
                problems.add(column.qualified() + ": retention '" + column.retention() + "' is no rule of the map");
            }
        }
        var defaults = new com.fasterxml.jackson.databind.ObjectMapper(
                        new com.fasterxml.jackson.dataformat.yaml.YAMLFactory())
                .readTree(getClass().getResourceAsStream("/application.yaml"));
        for (DataMap.Rule rule : MAP.rules().values()) {
            if (rule.setting() != null
                    && !rule.planned()
                    && defaults.at("/" + rule.setting().replace('.', '/')).isMissingNode()) {
                problems.add("rule " + rule.id() + ": setting " + rule.setting() + " is not in application.yaml");
            }
        }
        Set<String> used = MAP.columns().stream().map(DataMap.Column::retention).collect(Collectors.toSet());
        MAP.rules().keySet().stream()
                .filter(rule -> !used.contains(rule))
                .forEach(rule -> problems.add("rule " + rule + " is used by no column"));
        assertThat(problems).as("the retention rules").isEmpty();
    }

    /** Regenerate with {@code -Dnmc.datamap.render=true}. */
    @Test
    void dataMapMdIsTheRenderingOfTheYaml() throws IOException {
        Path markdown = ROOT.resolve(DataMap.MARKDOWN);
        if (Boolean.getBoolean("nmc.datamap.render")) {
            Files.writeString(markdown, MAP.markdown(), StandardCharsets.UTF_8);
        }
        assertThat(Files.exists(markdown) ? Files.readString(markdown, StandardCharsets.UTF_8) : "")
                .as(DataMap.MARKDOWN + " is stale: run DataMapTest with -Dnmc.datamap.render=true")
                .isEqualTo(MAP.markdown());
    }

    /** Every foreign-key column as {referring table.column, referred table.column}. */
    private static List<String[]> references() throws SQLException {
        List<String[]> references = new ArrayList<>();
        try (Connection c = DB.connect();
                Statement s = c.createStatement();
                ResultSet rows = s.executeQuery("""
                SELECT cl.relname || '.' || a.attname, rf.relname || '.' || ra.attname
                  FROM pg_constraint co
                  JOIN pg_class cl ON cl.oid = co.conrelid
                  JOIN pg_class rf ON rf.oid = co.confrelid
                 CROSS JOIN LATERAL unnest(co.conkey, co.confkey) AS k(attnum, refnum)
                  JOIN pg_attribute a ON a.attrelid = co.conrelid AND a.attnum = k.attnum
                  JOIN pg_attribute ra ON ra.attrelid = co.confrelid AND ra.attnum = k.refnum
                 WHERE co.contype = 'f' AND cl.relnamespace = 'public'::regnamespace AND NOT cl.relispartition
                """)) {
            while (rows.next()) {
                references.add(new String[] {rows.getString(1), rows.getString(2)});
            }
        }
        return references;
    }
}
