package nl.overheid.moz.nmc.ldv;

import com.clickhouse.client.api.Client;
import com.clickhouse.client.api.ConnectionInitiationException;
import com.clickhouse.client.api.ServerException;
import com.clickhouse.data.ClickHouseFormat;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The processing log in ClickHouse, MOZa's LDV store, in the layout of its LDV wrapper ({@code
 * ClickHouseRepository}): camelCase columns, {@code attributes} and {@code resource} as {@code Map(String, String)},
 * {@code MergeTree() ORDER BY (traceId, spanId)}, rows inserted as {@code JSONEachRow} through {@code
 * com.clickhouse:client-v2} over HTTP, a root span's parent written as {@code 0000000000000000}. The table is created
 * when missing. Each write waits at most {@code ldv.clickhouse.timeout} for the server's answer.
 *
 * <p>Not run against a ClickHouse server here: the only one these machines can install (Debian's 18.16) has no
 * {@code Map} type and cannot hold this table (README, "The processing log"). Its statements and rows are tested on
 * their own ({@code ClickHouseSpanRepositoryTest}), and the client's requests against a stand-in HTTP server.
 */
public final class ClickHouseSpanRepository implements SpanStore {

    /** A root span's parent in the wrapper's ClickHouse rows ({@code SpanId.getInvalid()}): the column is not null. */
    static final String NO_PARENT = "0000000000000000";

    private static final ObjectMapper JSON = new ObjectMapper();

    private final Client client;
    private final String table;
    private final Duration timeout;

    public ClickHouseSpanRepository(LdvSettings.ClickHouse settings) {
        this(
                new Client.Builder()
                        .addEndpoint(settings.endpoint())
                        .setUsername(settings.user())
                        .setPassword(settings.password())
                        .setDefaultDatabase(settings.database())
                        .setConnectTimeout(settings.timeout().toMillis(), ChronoUnit.MILLIS)
                        .setConnectionRequestTimeout(settings.timeout().toMillis(), ChronoUnit.MILLIS)
                        .setSocketTimeout(settings.timeout().toMillis(), ChronoUnit.MILLIS)
                        .setExecutionTimeout(settings.timeout().toMillis(), ChronoUnit.MILLIS)
                        .setMaxRetries(0)
                        .build(),
                qualified(settings.database(), settings.table()),
                settings.timeout());
    }

    ClickHouseSpanRepository(Client client, String table, Duration timeout) {
        this.client = client;
        this.table = table;
        this.timeout = timeout;
    }

    /**
     * The table with its database: a server that ignores the client's default database (older ones do) still
     * writes to the right one. A name that already has a database is kept.
     */
    static String qualified(String database, String table) {
        return table.contains(".") ? table : database + "." + table;
    }

    /** The wrapper's DDL, column for column ({@code ClickHouseRepository.ensureSchema}). */
    static String createTableSql(String table) {
        return """
                CREATE TABLE IF NOT EXISTS %s (
                    traceId String,
                    spanId String,
                    status String,
                    name String,
                    startTime Int64,
                    endTime Int64,
                    parentSpanId String,
                    attributes Map(String, String),
                    resource Map(String, String)
                )
                ENGINE = MergeTree()
                ORDER BY (traceId, spanId)
                """.formatted(table);
    }

    /** The rows as the wrapper sends them: one JSON object a line, keys the column names, in its order. */
    static String jsonEachRow(List<SpanRow> rows) {
        StringBuilder payload = new StringBuilder();
        for (SpanRow row : rows) {
            Map<String, Object> line = new LinkedHashMap<>();
            line.put("traceId", row.traceId());
            line.put("spanId", row.spanId());
            line.put("status", row.status());
            line.put("name", row.name());
            line.put("startTime", row.startTimeMillis());
            line.put("endTime", row.endTimeMillis());
            line.put("parentSpanId", row.parentSpanId() == null ? NO_PARENT : row.parentSpanId());
            line.put("attributes", row.attributes());
            line.put("resource", row.resource());
            try {
                payload.append(JSON.writeValueAsString(line)).append('\n');
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("a row of strings and numbers is always JSON", e);
            }
        }
        return payload.toString();
    }

    @Override
    public void ensureSchema() {
        try {
            client.query(createTableSql(table))
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .close();
        } catch (Exception e) {
            throw failure("creating the table", e);
        }
    }

    @Override
    public void insert(List<SpanRow> rows) {
        if (rows.isEmpty()) {
            return;
        }
        byte[] payload = jsonEachRow(rows).getBytes(StandardCharsets.UTF_8);
        try {
            client.insert(table, new ByteArrayInputStream(payload), ClickHouseFormat.JSONEachRow)
                    .get(timeout.toMillis(), TimeUnit.MILLISECONDS)
                    .close();
        } catch (Exception e) {
            throw failure("writing " + rows.size() + " row(s)", e);
        }
    }

    /**
     * The server's codes for a row it cannot take (CANNOT_PARSE_TEXT, CANNOT_PARSE_QUOTED_STRING,
     * CANNOT_PARSE_INPUT_ASSERTION_FAILED, CANNOT_PARSE_DATE, CANNOT_PARSE_DATETIME, TYPE_MISMATCH,
     * CANNOT_PARSE_NUMBER, INCORRECT_DATA, TOO_LARGE_STRING_SIZE, CANNOT_INSERT_NULL_IN_ORDINARY_COLUMN): only
     * these are written again row by row. A connection reset after a committed insert is not among them, so its
     * rows are never inserted a second time (MergeTree does not deduplicate).
     */
    private static final java.util.Set<Integer> ROW_CONTENT_ERRORS =
            java.util.Set.of(6, 26, 27, 38, 41, 53, 72, 117, 131, 349);

    /** The failure classed by the server's error code, or by how the call failed. */
    static Failure failure(String what, Exception e) {
        if (e instanceof InterruptedException) {
            Thread.currentThread().interrupt();
        }
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        String reason = "error";
        boolean oneRow = false;
        for (Throwable c = cause; c != null; c = c.getCause()) {
            if (c instanceof ServerException server) {
                oneRow = ROW_CONTENT_ERRORS.contains(server.getCode());
                reason = switch (server.getCode()) {
                    case 60, 81 -> "no-table"; // UNKNOWN_TABLE, UNKNOWN_DATABASE
                    case 192, 193, 194, 195, 497, 516 -> "refused"; // unknown user, wrong password, access denied
                    case 243 -> "disk-full"; // NOT_ENOUGH_SPACE
                    case 159, 209 -> "timeout"; // TIMEOUT_EXCEEDED, SOCKET_TIMEOUT
                    default -> "error";
                };
                break;
            }
            if (c instanceof TimeoutException || c instanceof java.net.SocketTimeoutException) {
                reason = "timeout";
                break;
            }
            if (c instanceof ConnectionInitiationException || c instanceof java.net.ConnectException) {
                reason = "connection";
                break;
            }
        }
        return new Failure(reason, "the processing log's ClickHouse store failed " + what, cause, oneRow);
    }

    @Override
    public void close() {
        client.close();
    }
}
