package nl.overheid.moz.nmc.db;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A statement with named parameters ({@code :name}) on a given connection.
 *
 * <p>Repositories keep their SQL as text blocks next to the code that owns the table; this class only
 * turns {@code :name} into positional binds and maps rows. {@code ::type} casts are left alone.
 * Time is always bound as {@code timestamptz} so a session time zone never shifts it.
 */
public final class Sql {

    private static final Pattern NAMED = Pattern.compile("(?<!:):([a-zA-Z][a-zA-Z0-9_]*)");
    private static final Map<String, Parsed> PARSED = new ConcurrentHashMap<>();

    private final Connection connection;
    private final Parsed parsed;
    private final Map<String, Object> values = new HashMap<>();

    private Sql(Connection connection, String text) {
        this.connection = connection;
        this.parsed = PARSED.computeIfAbsent(text, Sql::parse);
    }

    /** Starts a statement on the connection. */
    public static Sql on(Connection connection, String text) {
        return new Sql(connection, text);
    }

    /** Binds a named parameter; {@code null} is bound as SQL NULL. */
    public Sql bind(String name, Object value) {
        if (!parsed.names.contains(name)) {
            throw new IllegalArgumentException("statement has no parameter :" + name);
        }
        values.put(name, value);
        return this;
    }

    /** Runs an INSERT/UPDATE/DELETE and returns the number of rows it touched. */
    public int update() {
        try (PreparedStatement statement = prepare()) {
            return statement.executeUpdate();
        } catch (SQLException e) {
            throw new DatabaseException(e);
        }
    }

    /** Runs a query and maps every row. */
    public <T> List<T> list(RowMapper<T> mapper) {
        try (PreparedStatement statement = prepare(); ResultSet rows = statement.executeQuery()) {
            List<T> result = new ArrayList<>();
            while (rows.next()) {
                result.add(mapper.map(new Row(rows)));
            }
            return result;
        } catch (SQLException e) {
            throw new DatabaseException(e);
        }
    }

    /** Runs a query that yields at most one row. More than one row is a bug and throws. */
    public <T> Optional<T> optional(RowMapper<T> mapper) {
        List<T> rows = list(mapper);
        if (rows.size() > 1) {
            throw new IllegalStateException("expected at most one row, got " + rows.size());
        }
        return rows.stream().findFirst();
    }

    /** Runs a query that must yield exactly one row. */
    public <T> T one(RowMapper<T> mapper) {
        return optional(mapper).orElseThrow(() -> new IllegalStateException("expected one row, got none"));
    }

    private PreparedStatement prepare() throws SQLException {
        PreparedStatement statement = connection.prepareStatement(parsed.positional);
        for (int i = 0; i < parsed.order.size(); i++) {
            String name = parsed.order.get(i);
            if (!values.containsKey(name)) {
                statement.close();
                throw new IllegalStateException("parameter :" + name + " is not bound");
            }
            setValue(statement, i + 1, values.get(name));
        }
        return statement;
    }

    private static void setValue(PreparedStatement statement, int index, Object value) throws SQLException {
        switch (value) {
            case null -> statement.setNull(index, Types.OTHER);
            case Instant instant -> statement.setObject(index, instant.atOffset(ZoneOffset.UTC), Types.TIMESTAMP_WITH_TIMEZONE);
            case UUID uuid -> statement.setObject(index, uuid);
            case Enum<?> e -> statement.setString(index, e instanceof DbValue dbValue ? dbValue.dbValue() : e.name());
            case DbValue dbValue -> statement.setString(index, dbValue.dbValue());
            case UUID[] uuids -> statement.setArray(index, statement.getConnection().createArrayOf("uuid", uuids));
            case String[] strings -> statement.setArray(index, statement.getConnection().createArrayOf("text", strings));
            case byte[][] byteArrays -> statement.setArray(index, statement.getConnection().createArrayOf("bytea", byteArrays));
            default -> statement.setObject(index, value);
        }
    }

    private static Parsed parse(String text) {
        Matcher matcher = NAMED.matcher(text);
        StringBuilder positional = new StringBuilder();
        List<String> order = new ArrayList<>();
        while (matcher.find()) {
            order.add(matcher.group(1));
            matcher.appendReplacement(positional, "?");
        }
        matcher.appendTail(positional);
        return new Parsed(positional.toString(), order, java.util.Set.copyOf(order));
    }

    private record Parsed(String positional, List<String> order, java.util.Set<String> names) {
    }

    /** Maps one row. */
    @FunctionalInterface
    public interface RowMapper<T> {
        T map(Row row) throws SQLException;
    }

    /** A value that is stored under another spelling than its Java name (status values with hyphens). */
    public interface DbValue {
        String dbValue();
    }

    /** A thin, null-aware view of the current row. */
    public static final class Row {
        private final ResultSet rows;

        Row(ResultSet rows) {
            this.rows = rows;
        }

        public String string(String column) throws SQLException {
            return rows.getString(column);
        }

        public UUID uuid(String column) throws SQLException {
            return rows.getObject(column, UUID.class);
        }

        public int integer(String column) throws SQLException {
            return rows.getInt(column);
        }

        public Long nullableLong(String column) throws SQLException {
            long value = rows.getLong(column);
            return rows.wasNull() ? null : value;
        }

        public long longValue(String column) throws SQLException {
            return rows.getLong(column);
        }

        public boolean bool(String column) throws SQLException {
            return rows.getBoolean(column);
        }

        public byte[] bytes(String column) throws SQLException {
            return rows.getBytes(column);
        }

        public Instant instant(String column) throws SQLException {
            OffsetDateTime value = rows.getObject(column, OffsetDateTime.class);
            return value == null ? null : value.toInstant();
        }

        public Object array(String column) throws SQLException {
            java.sql.Array array = rows.getArray(column);
            return array == null ? null : array.getArray();
        }

        public UUID[] uuids(String column) throws SQLException {
            java.sql.Array array = rows.getArray(column);
            return array == null ? new UUID[0] : (UUID[]) array.getArray();
        }

    }
}
