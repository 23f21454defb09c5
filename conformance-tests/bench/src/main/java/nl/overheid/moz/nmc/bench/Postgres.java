package nl.overheid.moz.nmc.bench;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.regex.Pattern;

/**
 * The benchmark's PostgreSQL cluster (the one {@code scripts/bench} starts): a database per benchmark, and
 * plain JDBC for generating data and reading results. The NMC and pgbench use the same cluster.
 */
public final class Postgres {

    private static final Pattern DATABASE_NAME = Pattern.compile("^bench_[a-z]+$");

    private final String host;
    private final int port;
    private final String user;
    private final String password;
    /** One connection per database for the harness's own queries (its polls would otherwise log in each time). */
    private final java.util.Map<String, Connection> shared = new java.util.HashMap<>();

    public Postgres(String host, int port, String user, String password) {
        this.host = host;
        this.port = port;
        this.user = user;
        this.password = password;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database;
    }

    /** A fresh, empty database {@code name} (dropped first if a previous run left it). */
    public String freshDatabase(String name) {
        if (!DATABASE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("not a benchmark database name: " + name);
        }
        closeShared(name);
        try (Connection c = connect("nmc");
                Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
            s.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create database " + name, e);
        }
        return name;
    }

    public void dropDatabase(String name) {
        if (!DATABASE_NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("not a benchmark database name: " + name);
        }
        closeShared(name);
        try (Connection c = connect("nmc");
                Statement s = c.createStatement()) {
            c.setAutoCommit(true);
            s.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            throw new IllegalStateException("cannot drop database " + name, e);
        }
    }

    /** A connection with autocommit on and no statement time-out (generating data takes a while). */
    public Connection connect(String database) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty(
                "options",
                "-c statement_timeout=0 -c transaction_timeout=0" + " -c idle_in_transaction_session_timeout=0");
        Connection connection = DriverManager.getConnection(jdbcUrl(database), properties);
        connection.setAutoCommit(true);
        return connection;
    }

    private synchronized Connection shared(String database) throws SQLException {
        Connection connection = shared.get(database);
        if (connection == null || connection.isClosed()) {
            connection = connect(database);
            shared.put(database, connection);
        }
        return connection;
    }

    private synchronized void closeShared(String database) {
        Connection connection = shared.remove(database);
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // it goes with the database
            }
        }
    }

    /** The first column of the first row, as text (null when there is no row). */
    public synchronized String text(String database, String sql, Object... parameters) {
        Connection c;
        try {
            c = shared(database);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to " + database, e);
        }
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind(c, s, parameters);
            try (ResultSet rows = s.executeQuery()) {
                return rows.next() ? rows.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException("query failed: " + sql, e);
        }
    }

    public long number(String database, String sql, Object... parameters) {
        String text = text(database, sql, parameters);
        return text == null ? 0 : Long.parseLong(text);
    }

    /** Every row, each as its columns' text. */
    public synchronized List<String[]> rows(String database, String sql, Object... parameters) {
        Connection c;
        try {
            c = shared(database);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot connect to " + database, e);
        }
        try (PreparedStatement s = c.prepareStatement(sql)) {
            bind(c, s, parameters);
            List<String[]> rows = new ArrayList<>();
            try (ResultSet result = s.executeQuery()) {
                int columns = result.getMetaData().getColumnCount();
                while (result.next()) {
                    String[] row = new String[columns];
                    for (int i = 0; i < columns; i++) {
                        row[i] = result.getString(i + 1);
                    }
                    rows.add(row);
                }
            }
            return rows;
        } catch (SQLException e) {
            throw new IllegalStateException("query failed: " + sql, e);
        }
    }

    /** Binds parameters; a {@code String[]} becomes a text array, a {@code UUID[]} a uuid array. */
    static void bind(Connection c, PreparedStatement s, Object... parameters) throws SQLException {
        for (int i = 0; i < parameters.length; i++) {
            Object parameter = parameters[i];
            if (parameter instanceof String[] texts) {
                s.setArray(i + 1, c.createArrayOf("text", texts));
            } else if (parameter instanceof java.util.UUID[] uuids) {
                s.setArray(i + 1, c.createArrayOf("uuid", uuids));
            } else {
                s.setObject(i + 1, parameter);
            }
        }
    }

    /** Runs statements in autocommit mode, one after the other. */
    public void execute(String database, String... statements) {
        try (Connection c = connect(database);
                Statement s = c.createStatement()) {
            for (String statement : statements) {
                s.execute(statement);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("statement failed: " + String.join("; ", statements), e);
        }
    }

    /** {@code PostgreSQL 17.6} from {@code version()}. */
    /** The settings that decide whether a commit waits for its WAL flush. */
    public String durability() {
        return "fsync=" + text("nmc", "SELECT current_setting('fsync')")
                + ", synchronous_commit=" + text("nmc", "SELECT current_setting('synchronous_commit')")
                + ", full_page_writes=" + text("nmc", "SELECT current_setting('full_page_writes')");
    }

    public String version() {
        String full = text("nmc", "SELECT version()");
        String[] words = full.split(" ");
        return words.length >= 2 ? words[0] + " " + words[1] : full;
    }
}
