package nl.overheid.moz.nmc.db;

import io.helidon.common.mapper.MapperManager;
import io.helidon.dbclient.DbClientServiceContext;
import io.helidon.dbclient.DbColumn;
import io.helidon.dbclient.DbIndexedStatementParameters;
import io.helidon.dbclient.DbNamedStatementParameters;
import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.jdbc.JdbcClientBuilder;
import java.sql.Array;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.ListIterator;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * How the NMC's Java types cross DbClient, in one place: a {@code DbClientService} that converts every
 * statement parameter before it is bound, and the mappers and helpers that read columns back.
 *
 * <ul>
 *   <li>{@link Instant} is bound as a UTC {@code timestamptz}, so no session time zone shifts it, and read
 *       back as an {@code Instant};</li>
 *   <li>{@link DbValue} enums are bound by their database spelling, other enums by name;</li>
 *   <li>{@link Duration} is bound as ISO 8601 text, for {@code CAST(:x AS interval)};</li>
 *   <li>{@code UUID[]} and {@code String[]} are bound as PostgreSQL array literals, for {@code CAST(:x AS uuid[])}
 *       and {@code CAST(:x AS text[])} (DbClient has no array binding); {@code byte[][]} goes to the driver as it
 *       is, which binds it as a binary {@code bytea[]} (for {@code CAST(:x AS bytea[])}).</li>
 * </ul>
 */
public final class DbTypes {

    private DbTypes() {}

    /** Registers the conversions on a DbClient builder. */
    public static JdbcClientBuilder configure(JdbcClientBuilder builder) {
        return builder.addService(DbTypes::convertParameters)
                .mapperManager(MapperManager.builder()
                        .addMapper(Timestamp::toInstant, Timestamp.class, Instant.class)
                        .build());
    }

    static DbClientServiceContext convertParameters(DbClientServiceContext context) {
        if (context.statementParameters() instanceof DbNamedStatementParameters named) {
            Map<String, Object> converted = new LinkedHashMap<>();
            named.parameters().forEach((name, value) -> converted.put(name, toDatabase(value)));
            context.parameters(converted);
        } else if (context.statementParameters() instanceof DbIndexedStatementParameters indexed) {
            // In place: the context's parameters(List) appends to the statement's values rather than replacing them.
            ListIterator<Object> values = indexed.parameters().listIterator();
            while (values.hasNext()) {
                values.set(toDatabase(values.next()));
            }
        }
        return context;
    }

    /** The value as it is bound. Public for tests; callers pass plain Java values. */
    public static Object toDatabase(Object value) {
        return switch (value) {
            case null -> null;
            case Instant instant -> OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
            case DbValue dbValue -> dbValue.dbValue();
            case Enum<?> e -> e.name();
            case Duration duration -> duration.toString();
            // Arrays travel as array literals; a null element is the literal's NULL.
            case UUID[] uuids ->
                Stream.of(uuids)
                        .map(uuid -> uuid == null ? "NULL" : uuid.toString())
                        .collect(Collectors.joining(",", "{", "}"));
            // The driver binds byte[][] itself, as a binary bytea[]: the hex literal doubled every ciphertext, and
            // building it was about 40 % of what a bulk flood allocated (JFR, benchmark flood).
            case byte[][] arrays -> arrays;
            case String[] strings ->
                Stream.of(strings)
                        .map(text -> text == null
                                ? "NULL"
                                : "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"")
                        .collect(Collectors.joining(",", "{", "}"));
            default -> value;
        };
    }

    /** A text column; {@code null} stays {@code null}. */
    public static String text(DbRow row, String column) {
        return row.column(column).get(String.class);
    }

    /** A uuid column; {@code null} stays {@code null}. */
    public static UUID uuid(DbRow row, String column) {
        return row.column(column).get(UUID.class);
    }

    /** An integer column of any width (int2, int4, int8 and count(*) arrive as different Java types). */
    public static int integer(DbRow row, String column) {
        return Math.toIntExact(longValue(row, column));
    }

    /** A number column that must not be null. */
    public static long longValue(DbRow row, String column) {
        Number number = row.column(column).get(Number.class);
        if (number == null) {
            throw new IllegalStateException("column " + column + " is null");
        }
        return number.longValue();
    }

    /** A number column that may be null. */
    public static Long nullableLong(DbRow row, String column) {
        Number number = row.column(column).get(Number.class);
        return number == null ? null : number.longValue();
    }

    /** A timestamp column as an instant ({@code null} stays {@code null}). */
    public static Instant instant(DbRow row, String column) {
        return row.column(column).get(Instant.class);
    }

    /** A {@code uuid[]} column; {@code null} reads as empty. */
    public static List<UUID> uuids(DbRow row, String column) {
        return List.of(array(row.column(column), UUID[].class, new UUID[0]));
    }

    /** A {@code text[]} column; {@code null} reads as empty. */
    public static List<String> strings(DbRow row, String column) {
        return List.of(array(row.column(column), String[].class, new String[0]));
    }

    private static <T> T array(DbColumn column, Class<T> type, T empty) {
        Array array = column.get(Array.class);
        if (array == null) {
            return empty;
        }
        try {
            return type.cast(array.getArray());
        } catch (SQLException e) {
            throw new IllegalStateException("cannot read array column " + column.name(), e);
        }
    }
}
