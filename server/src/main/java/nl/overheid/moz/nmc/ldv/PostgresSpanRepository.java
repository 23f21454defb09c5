package nl.overheid.moz.nmc.ldv;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.SqlStates;
import nl.overheid.moz.nmc.db.Statement;

/**
 * The processing log in PostgreSQL, in the layout of MOZa's LDV wrapper ({@code PostgresRepository}): snake_case
 * columns, {@code attributes} and {@code resource} as {@code jsonb} objects of strings, primary key {@code (trace_id,
 * span_id)}. Its own database and role ({@code ldv.postgresql.*}); the table is created when missing, never altered
 * (as the wrapper does, so a table an older wrapper made, with nullable columns, is written the same). One
 * transaction per write, committed before {@link #insert} returns.
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

    /** The wrapper's insert, with DbClient's named parameters and {@code CAST} for its {@code ?::jsonb}. */
    static Statement insertStatement(String table) {
        return Statement.named("spansInsert", """
                INSERT INTO %s (trace_id, span_id, status, "name", start_time, end_time, parent_span_id,
                                attributes, resource)
                VALUES (:traceId, :spanId, :status, :name, :startTime, :endTime, NULLIF(:parentSpanId, ''),
                        CAST(:attributes AS jsonb), CAST(:resource AS jsonb))
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
        List<String[]> json = rows.stream()
                .map(row -> new String[] {json(row.attributes()), json(row.resource())})
                .toList();
        try {
            database.inTransactionDo(tx -> {
                for (int i = 0; i < rows.size(); i++) {
                    SpanRow row = rows.get(i);
                    insert.dml(tx)
                            .addParam("traceId", row.traceId())
                            .addParam("spanId", row.spanId())
                            .addParam("status", row.status())
                            .addParam("name", row.name())
                            .addParam("startTime", row.startTimeMillis())
                            .addParam("endTime", row.endTimeMillis())
                            .addParam("parentSpanId", row.parentSpanId() == null ? "" : row.parentSpanId())
                            .addParam("attributes", json.get(i)[0])
                            .addParam("resource", json.get(i)[1])
                            .execute();
                }
            });
        } catch (RuntimeException e) {
            throw failure("writing " + rows.size() + " row(s)", e);
        }
    }

    private static String json(java.util.Map<String, String> values) {
        try {
            return JSON.writeValueAsString(values);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a map of strings is always JSON", e);
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
