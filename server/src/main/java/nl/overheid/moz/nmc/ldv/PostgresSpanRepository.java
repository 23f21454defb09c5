package nl.overheid.moz.nmc.ldv;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.SqlStates;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The processing log in PostgreSQL, in the layout of MOZa's LDV wrapper ({@code PostgresRepository}): snake_case
 * columns, {@code attributes} and {@code resource} as {@code jsonb} objects of strings, primary key {@code (trace_id,
 * span_id)}. Its own database and role ({@code ldv.postgresql.*}); the table is created when missing, never altered
 * (as the wrapper does, so a table an older wrapper made, with nullable columns, is written the same). One
 * statement and one transaction per write, committed before {@link #insert} returns.
 */
public final class PostgresSpanRepository implements SpanStore {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Database database;
    private final Statement create;
    private final Statement insert;

    public PostgresSpanRepository(LdvSettings.Postgres settings) {
        this(
                Database.openSecondary(
                        "ldv",
                        settings.url(),
                        settings.user(),
                        settings.password(),
                        settings.poolSize(),
                        settings.connectTimeout(),
                        settings.statementTimeout()),
                settings.table());
    }

    PostgresSpanRepository(Database database, String table) {
        this.database = database;
        this.create = createStatement(table);
        this.insert = insertStatement(table);
    }

    /** The wrapper's DDL, word for word ({@code PostgresRepository.ensureSchema}). */
    static Statement createStatement(String table) {
        return Statement.named("spansCreate", """
                CREATE TABLE IF NOT EXISTS %s (
                    trace_id text NOT NULL,
                    span_id text NOT NULL,
                    status text NOT NULL,
                    "name" text NOT NULL,
                    start_time bigint NOT NULL,
                    end_time bigint NOT NULL,
                    parent_span_id text,
                    attributes jsonb,
                    resource jsonb,
                    PRIMARY KEY (trace_id, span_id)
                )
                """.formatted(table));
    }

    /**
     * The wrapper's insert, its columns and values, for a whole group in one statement: every row as an element of
     * one JSON array ({@code jsonb_to_recordset}), so the group is one write bounded as a whole by the store's
     * {@code statement_timeout}. Row by row, a store slow on each row but on none beyond the timeout would hold a
     * group of 64 for minutes while the tasks waiting on it lose their leases.
     */
    static Statement insertStatement(String table) {
        return Statement.named("spansInsert", """
                INSERT INTO %s (trace_id, span_id, status, "name", start_time, end_time, parent_span_id,
                                attributes, resource)
                SELECT r.trace_id, r.span_id, r.status, r."name", r.start_time, r.end_time, r.parent_span_id,
                       r.attributes, r.resource
                FROM jsonb_to_recordset(CAST(:rows AS jsonb)) AS r(trace_id text, span_id text, status text,
                     "name" text, start_time bigint, end_time bigint, parent_span_id text, attributes jsonb,
                     resource jsonb)
                """.formatted(table));
    }

    @Override
    public void ensureSchema() {
        try {
            database.inTransactionDo(tx -> create.dml(tx).execute());
        } catch (RuntimeException e) {
            throw failure("creating the table", e);
        }
    }

    @Override
    public void insert(List<SpanRow> rows) {
        if (rows.isEmpty()) {
            return;
        }
        List<Map<String, Object>> values = new ArrayList<>(rows.size());
        for (SpanRow row : rows) {
            Map<String, Object> value = new LinkedHashMap<>();
            value.put("trace_id", row.traceId());
            value.put("span_id", row.spanId());
            value.put("status", row.status());
            value.put("name", row.name());
            value.put("start_time", row.startTimeMillis());
            value.put("end_time", row.endTimeMillis());
            value.put("parent_span_id", row.parentSpanId());
            value.put("attributes", row.attributes());
            value.put("resource", row.resource());
            values.add(value);
        }
        String json = json(values);
        try {
            database.inTransactionDo(tx -> insert.dml(tx).addParam("rows", json).execute());
        } catch (RuntimeException e) {
            throw failure("writing " + rows.size() + " row(s)", e);
        }
    }

    private static String json(List<Map<String, Object>> values) {
        try {
            return JSON.writeValueAsString(values);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("strings, numbers and maps of strings are always JSON", e);
        }
    }

    /**
     * The failure classed by its SQLSTATE: the store down or gone away, a statement over its timeout (or a lock
     * wait), the role refused (authentication or privilege), the table missing, the disk full; anything else
     * {@code error}.
     */
    static Failure failure(String what, RuntimeException e) {
        Optional<String> state = SqlStates.of(e);
        String reason;
        if (SqlStates.unavailable(e) || state.isEmpty() && hasConnectionProblem(e)) {
            reason = "connection";
        } else {
            String code = state.orElse("");
            reason = switch (code) {
                case "57014", "55P03", "25P03" -> "timeout";
                case "42501", "28000", "28P01" -> "refused";
                case "42P01", "3F000" -> "no-table";
                case "53100" -> "disk-full";
                case "53300" -> "connection";
                default -> code.startsWith("28") ? "refused" : "error";
            };
        }
        // data exceptions (22) and integrity violations (23, a duplicate key): a row's own content
        boolean oneRow = state.filter(code -> code.startsWith("22") || code.startsWith("23"))
                .isPresent();
        return new Failure(reason, "the processing log's PostgreSQL store failed " + what, e, oneRow);
    }

    private static boolean hasConnectionProblem(Throwable e) {
        for (Throwable cause = e; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException || cause instanceof java.io.IOException) {
                return true;
            }
        }
        return false;
    }

    @Override
    public void close() {
        database.close();
    }
}
