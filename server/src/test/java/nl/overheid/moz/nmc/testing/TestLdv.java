package nl.overheid.moz.nmc.testing;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * The processing log's PostgreSQL store for tests: the database {@code ldv} with its own role {@code ldv} in the test
 * cluster ({@code scripts/pg} makes both; {@code NMC_TEST_LDV_URL}, {@code _USER}, {@code _PASSWORD} name another),
 * and a table of this JVM's own ({@code spans_<random>}), so a test that drops or locks it disturbs no other JVM.
 * {@link #yaml()} is the configuration that points an NMC at it; {@link #rows} reads what it holds, as the LDV role.
 */
public final class TestLdv {

    private static TestLdv instance;
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String url;
    private final String user;
    private final String password;
    private final String table;

    private TestLdv(String url, String user, String password, String table) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.table = table;
    }

    public static synchronized TestLdv get() {
        if (instance == null) {
            instance = create();
        }
        return instance;
    }

    private static TestLdv create() {
        String url = System.getenv("NMC_TEST_LDV_URL");
        String user = env("NMC_TEST_LDV_USER", "ldv");
        String password = env("NMC_TEST_LDV_PASSWORD", "ldv");
        if (url == null || url.isBlank()) {
            // the same cluster as the NMC's test database, its database ldv
            String nmc = TestDatabase.get().url();
            String base = nmc.contains("?") ? nmc.substring(0, nmc.indexOf('?')) : nmc;
            String parameters = nmc.contains("?") ? nmc.substring(nmc.indexOf('?')) : "";
            url = base.substring(0, base.lastIndexOf('/') + 1) + "ldv" + parameters;
            provideIfMissing(url, user, password);
        }
        String table = "spans_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        return new TestLdv(url, user, password, table);
    }

    /**
     * Where the cluster did not come from {@code scripts/pg} (a Testcontainers PostgreSQL), the database and role are
     * made as {@code scripts/pg} makes them, by the test database's (superuser) role.
     */
    private static void provideIfMissing(String url, String user, String password) {
        try (Connection ignored = DriverManager.getConnection(url, user, password)) {
            return;
        } catch (SQLException missing) {
            TestDatabase admin = TestDatabase.get();
            try (Connection c = DriverManager.getConnection(admin.url(), admin.user(), admin.password());
                    Statement s = c.createStatement()) {
                s.execute("CREATE ROLE " + user + " LOGIN PASSWORD '" + password + "'");
                s.execute("CREATE DATABASE ldv OWNER " + user);
                s.execute("REVOKE CONNECT, TEMPORARY ON DATABASE ldv FROM PUBLIC");
                s.execute("GRANT CONNECT, TEMPORARY ON DATABASE ldv TO " + user);
            } catch (SQLException e) {
                throw new IllegalStateException(
                        "no processing-log database ldv with role ldv in the test cluster; scripts/pg start makes them",
                        e);
            }
        }
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    public String url() {
        return url;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    /** This JVM's table. */
    public String table() {
        return table;
    }

    /** The configuration of an NMC that writes its processing log here (YAML, an {@code ldv} subtree). */
    public String yaml() {
        return """
                ldv:
                  store: postgresql
                  postgresql:
                    url: "%s"
                    user: "%s"
                    password: "%s"
                    table: "%s"
                """.formatted(url, user, password, table);
    }

    /** One row of the store, as the LDV wrapper's layout has it. */
    public record Row(
            String traceId,
            String spanId,
            String status,
            String name,
            long startTime,
            long endTime,
            String parentSpanId,
            Map<String, String> attributes,
            Map<String, String> resource,
            java.time.Instant storedAt) {

        public String attribute(String key) {
            return attributes.get(key);
        }

        /** The row as JSON with the table's column names (what the journal of the lifecycle tests shows). */
        public String json() {
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("trace_id", traceId);
            row.put("span_id", spanId);
            row.put("status", status);
            row.put("name", name);
            row.put("start_time", startTime);
            row.put("end_time", endTime);
            row.put("parent_span_id", parentSpanId);
            row.put("attributes", attributes);
            row.put("resource", resource);
            try {
                return JSON.writeValueAsString(row);
            } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
                throw new IllegalStateException(e);
            }
        }
    }

    /** Every row of this JVM's table, oldest first (by start time, then span id); none when it does not exist. */
    public List<Row> rows() {
        return select("TRUE", List.of());
    }

    /** The rows of one trace. */
    public List<Row> rows(String traceId) {
        return select("trace_id = ?", List.of(traceId));
    }

    /** The row of one span, if stored. */
    public Optional<Row> row(String traceId, String spanId) {
        return select("trace_id = ? AND span_id = ?", List.of(traceId, spanId)).stream()
                .findFirst();
    }

    /** The rows whose parent is this span (the ERROR records of a call that failed). */
    public List<Row> children(String traceId, String parentSpanId) {
        return select("trace_id = ? AND parent_span_id = ?", List.of(traceId, parentSpanId));
    }

    private List<Row> select(String where, List<String> parameters) {
        List<Row> rows = new ArrayList<>();
        try (Connection c = connect();
                PreparedStatement s = c.prepareStatement("SELECT trace_id, span_id, status, \"name\", start_time,"
                        + " end_time, parent_span_id, attributes::text, resource::text,"
                        + " to_jsonb(t) ->> 'test_stored_at' FROM " + table + " t WHERE " + where
                        + " ORDER BY start_time, end_time, span_id")) {
            for (int i = 0; i < parameters.size(); i++) {
                s.setString(i + 1, parameters.get(i));
            }
            try (ResultSet r = s.executeQuery()) {
                while (r.next()) {
                    rows.add(new Row(
                            r.getString(1),
                            r.getString(2),
                            r.getString(3),
                            r.getString(4),
                            r.getLong(5),
                            r.getLong(6),
                            r.getString(7),
                            map(r.getString(8)),
                            map(r.getString(9)),
                            r.getString(10) == null
                                    ? null
                                    : java.time.OffsetDateTime.parse(r.getString(10))
                                            .toInstant()));
                }
            }
        } catch (SQLException e) {
            if ("42P01".equals(e.getSQLState())) {
                return rows; // no table (yet, or dropped by a test)
            }
            throw new IllegalStateException(e);
        }
        return rows;
    }

    private static Map<String, String> map(String json) {
        if (json == null) {
            return Map.of();
        }
        try {
            return JSON.readValue(json, new TypeReference<LinkedHashMap<String, String>>() {});
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One statement as the LDV role, committed (a fault a test puts on the store, or its repair). */
    public void execute(String sql) {
        try (Connection c = connect();
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * From now on every row the store takes gets the database's clock at its insert ({@link Row#storedAt}, a column
     * of the tests only, {@code test_stored_at}; the NMC names the columns it writes, so a column more does not
     * disturb it): written before a call means stored before the party saw it, on one wall clock. Needs the table,
     * which the NMC creates at start.
     */
    public void stampInserts() {
        execute("ALTER TABLE " + table
                + " ADD COLUMN IF NOT EXISTS test_stored_at timestamptz DEFAULT clock_timestamp()");
    }

    // ---- faults a test puts on the store (as its own role; heal() takes them away) ----

    /**
     * Every insert whose row matches {@code when} (SQL over {@code NEW}; {@code TRUE} for all) fails with this
     * SQLSTATE, its message quoting the row as a driver's message would ({@code quoted: ...}): a disk that is full
     * ({@code 53100}), say.
     */
    public void failInserts(String sqlState, String when) {
        execute("CREATE OR REPLACE FUNCTION " + table + "_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " RAISE EXCEPTION 'quoted: %', NEW.attributes USING ERRCODE = '" + sqlState + "'; END $$");
        execute("DROP TRIGGER IF EXISTS test_fault ON " + table);
        execute("CREATE TRIGGER test_fault BEFORE INSERT ON " + table + " FOR EACH ROW WHEN (" + when
                + ") EXECUTE FUNCTION " + table + "_fault()");
    }

    /** Every insert takes this long before it is written (beyond the NMC's statement timeout: a store that is slow). */
    public void slowInserts(java.time.Duration delay) {
        execute("CREATE OR REPLACE FUNCTION " + table + "_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                + " PERFORM pg_sleep(" + delay.toMillis() / 1000.0 + "); RETURN NEW; END $$");
        execute("DROP TRIGGER IF EXISTS test_fault ON " + table);
        execute("CREATE TRIGGER test_fault BEFORE INSERT ON " + table + " FOR EACH ROW EXECUTE FUNCTION " + table
                + "_fault()");
    }

    /** The role may no longer insert (the owner revokes its own privilege): the store refuses the role. */
    public void refuseInserts() {
        execute("REVOKE INSERT ON " + table + " FROM " + user);
    }

    /** The table is dropped, rows and all. */
    public void dropTable() {
        execute("DROP TABLE IF EXISTS " + table);
    }

    /** Every fault taken away (a dropped table is not brought back: the NMC creates it again). */
    public void heal() {
        execute("DO $$ BEGIN IF to_regclass('" + table + "') IS NOT NULL THEN"
                + " EXECUTE 'DROP TRIGGER IF EXISTS test_fault ON " + table + "';"
                + " EXECUTE 'GRANT INSERT ON " + table + " TO " + user + "'; END IF; END $$");
    }

    /** One statement as the LDV role logging in with {@code password} (a test that changed it). */
    public void executeAs(String password, String sql) {
        try (Connection c = DriverManager.getConnection(url, user, password);
                Statement s = c.createStatement()) {
            s.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Empties this JVM's table (when it exists). */
    public void reset() {
        execute("DO $$ BEGIN IF to_regclass('" + table + "') IS NOT NULL THEN EXECUTE 'TRUNCATE " + table
                + "'; END IF; END $$");
    }

    /** A connection as the LDV role (autocommit). */
    public Connection connect() throws SQLException {
        return DriverManager.getConnection(url, user, password);
    }
}
