package nl.overheid.moz.nmc.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import io.helidon.dbclient.DbClient;
import io.helidon.dbclient.DbExecute;
import io.helidon.dbclient.DbTransaction;
import io.helidon.dbclient.jdbc.CloseableJdbcConnectionPool;
import io.helidon.dbclient.jdbc.JdbcClientBuilder;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.logging.Logger;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The NMC's one PostgreSQL database: a HikariCP pool behind Helidon's DbClient, plus the unit of work.
 *
 * <p>Every unit of work is one transaction (no session state survives it), so the NMC can run behind a
 * transaction-pooling PgBouncer. Serialization failures and deadlocks rerun the whole unit a few times.
 * Repositories keep their SQL next to the code that owns the table, as {@link Statement}s, and run it on
 * the {@link DbTransaction} they are handed.
 */
public final class Database implements AutoCloseable {

    private static final Logger LOG = Logger.getLogger(Database.class.getName());
    private static final int MAX_ATTEMPTS = 3;
    /** {@code transaction_timeout} exists from PostgreSQL 17 on. */
    private static final int TRANSACTION_TIMEOUT_SINCE = 170000;

    private final HikariDataSource dataSource;
    /** Connections of their own for the readiness checks, so a probe never waits on the API's and workers' pool. */
    private final HikariDataSource health;

    private final DbClient client;

    private Database(HikariDataSource dataSource, HikariDataSource health) {
        this.dataSource = dataSource;
        this.health = health;
        CloseableJdbcConnectionPool pool = new CloseableJdbcConnectionPool() {
            @Override
            public Connection connection() {
                try {
                    return dataSource.getConnection();
                } catch (SQLException e) {
                    throw new io.helidon.dbclient.DbClientException("no database connection", e);
                }
            }

            @Override
            public void close() {
                dataSource.close();
            }
        };
        this.client = DbTypes.configure(JdbcClientBuilder.create().connectionPool(pool))
                .build();
    }

    /** Opens a pool for the given settings. Every connection carries the server-side timeouts. */
    /**
     * Every session in UTC. {@code -c TimeZone=UTC} in the startup options is not enough: the driver sends the JVM's
     * zone as a startup parameter of its own, which wins, so a JVM in Europe/Amsterdam had sessions whose
     * {@code interval 'N days'} followed daylight saving time ({@code SessionTimeZoneTest}).
     */
    private static final String UTC_SESSION = "SET TIME ZONE 'UTC'";

    public static Database open(DatabaseSettings settings) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(settings.url());
        config.setUsername(settings.user());
        config.setPassword(settings.password());
        config.setMaximumPoolSize(settings.poolSize());
        config.setAutoCommit(false);
        config.setPoolName("nmc");
        config.setConnectionTimeout(Duration.ofSeconds(10).toMillis());
        // Any open write transaction holds back the feed watermark: keep them short, server-side too.
        String options = "-c statement_timeout=" + settings.statementTimeout().toMillis()
                + " -c idle_in_transaction_session_timeout="
                + settings.idleInTransactionTimeout().toMillis()
                + " -c TimeZone=UTC";
        if (!settings.sessionOptions()) {
            // PgBouncer in transaction mode refuses the options startup parameter: the role carries them.
            LOG.info("db.session-options is false: statement, idle and transaction timeouts and TimeZone=UTC must be"
                    + " set on the database role");
        } else {
            if (serverVersion(settings) >= TRANSACTION_TIMEOUT_SINCE) {
                options += " -c transaction_timeout="
                        + settings.transactionTimeout().toMillis();
            } else {
                LOG.warning("PostgreSQL before 17 has no transaction_timeout; relying on statement and idle timeouts");
            }
            config.addDataSourceProperty("options", options);
            config.setConnectionInitSql(UTC_SESSION);
            // with autocommit off the pool commits its own statements (the SET above) only when they are isolated;
            // else the SET lay in the connection's first transaction and a rollback undid it
            config.setIsolateInternalQueries(true);
        }
        // UUIDs and enum spellings are bound as text; the server infers their type from the statement.
        config.addDataSourceProperty("stringtype", "unspecified");
        HikariDataSource dataSource = new HikariDataSource(config);
        warnAboutMissingTimeouts(dataSource, settings);
        HikariConfig healthConfig = new HikariConfig();
        config.copyStateTo(healthConfig);
        healthConfig.setPoolName("nmc-health");
        healthConfig.setMaximumPoolSize(2); // Flyway's validation takes two at once
        healthConfig.setMinimumIdle(0);
        healthConfig.setConnectionTimeout(Duration.ofSeconds(2).toMillis());
        return new Database(dataSource, new HikariDataSource(healthConfig));
    }

    /**
     * A pool for a database that is not the NMC's own (the processing log's PostgreSQL store): no migrations, and no
     * connection at open, since that database may be down when the NMC starts (it is needed to send, not to accept).
     * Everything is bounded: getting a connection (also a new one to a database that is down) by {@code
     * connectTimeout}, a statement server-side by {@code statementTimeout} and client-side (the socket) a second or
     * two later, so a write never waits longer than about their sum.
     */
    public static Database openSecondary(
            String poolName,
            String url,
            String user,
            String password,
            int poolSize,
            Duration connectTimeout,
            Duration statementTimeout) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        config.setUsername(user);
        config.setPassword(password);
        config.setPoolName(poolName);
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(0);
        config.setAutoCommit(false);
        // -1: the pool starts without a connection; the first use connects (and fails within connectTimeout)
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(connectTimeout.toMillis());
        config.setValidationTimeout(Math.min(connectTimeout.toMillis(), 1000));
        long connectSeconds = Math.max(1, (connectTimeout.toMillis() + 999) / 1000);
        config.addDataSourceProperty("connectTimeout", Long.toString(connectSeconds));
        config.addDataSourceProperty("loginTimeout", Long.toString(connectSeconds));
        config.addDataSourceProperty("socketTimeout", Long.toString((statementTimeout.toMillis() + 999) / 1000 + 2));
        config.addDataSourceProperty(
                "options",
                "-c statement_timeout=" + statementTimeout.toMillis()
                        + " -c idle_in_transaction_session_timeout=" + Math.max(1000, statementTimeout.toMillis() * 2)
                        + " -c TimeZone=UTC");
        config.setConnectionInitSql(UTC_SESSION);
        config.setIsolateInternalQueries(true); // commits the SET (see open)
        config.addDataSourceProperty("stringtype", "unspecified");
        HikariDataSource pool = new HikariDataSource(config);
        return new Database(pool, pool); // no readiness of its own: its checks, if any, share the pool
    }

    /**
     * The timeouts as a pooled connection really has them. A transaction-pooling PgBouncer refuses the {@code options}
     * startup parameter or, told to ignore it, drops it silently: then only what is set on the role applies, and the
     * operator should hear that the configured timeouts are not in force.
     */
    private static void warnAboutMissingTimeouts(HikariDataSource dataSource, DatabaseSettings settings) {
        Map<String, Long> wanted = Map.of(
                "statement_timeout", settings.statementTimeout().toMillis(),
                "idle_in_transaction_session_timeout",
                        settings.idleInTransactionTimeout().toMillis(),
                "transaction_timeout", settings.transactionTimeout().toMillis());
        try (Connection connection = dataSource.getConnection();
                var statement = connection.createStatement();
                var rows = statement.executeQuery("SELECT name, setting FROM pg_settings WHERE name IN "
                        + "('statement_timeout', 'idle_in_transaction_session_timeout', 'transaction_timeout')")) {
            while (rows.next()) {
                String name = rows.getString(1);
                long actual = Long.parseLong(rows.getString(2));
                if (actual != wanted.get(name)) {
                    LOG.warning(() -> name + " is " + actual + " ms on the database connections, not the configured "
                            + wanted.get(name) + " ms: a pooler (PgBouncer in transaction mode) drops per-connection "
                            + "settings; set them on the role (ALTER ROLE ... SET " + name + ")");
                }
            }
            connection.rollback();
        } catch (SQLException | RuntimeException e) {
            LOG.warning(() ->
                    "could not check the connections' timeouts: " + e.getClass().getSimpleName());
        }
    }

    private static int serverVersion(DatabaseSettings settings) {
        try (Connection connection = DriverManager.getConnection(settings.url(), settings.user(), settings.password());
                var statement = connection.createStatement();
                var rows = statement.executeQuery(
                        "SELECT current_setting('server_version_num'), " + "current_setting('synchronous_commit')")) {
            rows.next();
            if (rows.getString(2).equals("off")) {
                // A 202 promises the notification is stored; asynchronous commit breaks that promise on a crash
                // of the database (the fault test PostgresOutageTest loses acknowledged acceptances that way).
                LOG.warning("synchronous_commit is off: a crash of the database loses the last commits, among them "
                        + "acceptances already answered 202; keep it on outside throwaway environments");
            }
            return Integer.parseInt(rows.getString(1));
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reach the database at " + settings.url(), e);
        }
    }

    /** Applies the Flyway migrations shipped in the {@code nmc-sql} jar. */
    public void migrate() {
        flyway().migrate();
    }

    /** Validates that the schema equals the shipped migrations (production default). */
    public void validate() {
        flyway(dataSource).validate();
    }

    /** {@link #validate} on the readiness connection. */
    public void validateForHealth() {
        flyway(health).validate();
    }

    /** The readiness checks' own single connection (not the pool's). */
    public Connection healthConnection() throws SQLException {
        return health.getConnection();
    }

    private Flyway flyway() {
        return flyway(dataSource);
    }

    private static Flyway flyway(DataSource on) {
        return Flyway.configure()
                .dataSource(on)
                .locations("classpath:db/migration")
                .callbacks(new RuntimePrivileges())
                .load();
    }

    /** The pool itself, for Flyway and the health check. */
    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Runs {@code work} in one transaction and commits it; rolls back on any exception. A serialization
     * failure or deadlock reruns the whole unit of work (so {@code work} must not have other side effects).
     */
    public <T> T inTransaction(Function<DbTransaction, T> work) {
        for (int poging = 1; ; poging++) {
            DbTransaction transaction = client.transaction();
            try {
                T result = work.apply(transaction);
                transaction.commit();
                return result;
            } catch (RuntimeException e) {
                rollbackQuietly(transaction);
                if (!SqlStates.retryable(e) || poging >= MAX_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /**
     * Runs {@code work}'s statements each in its own implicit transaction (autocommit): for a lone statement
     * one round trip instead of two, and any row lock it takes is held only while the server runs it.
     */
    public <T> T autocommit(Function<DbExecute, T> work) {
        return work.apply(client.execute());
    }

    /** Runs {@code work} in one transaction without a result. */
    public void inTransactionDo(Consumer<DbTransaction> work) {
        inTransaction(transaction -> {
            work.accept(transaction);
            return null;
        });
    }

    /**
     * DbClient closes a transaction's connection when a statement fails (the pool then rolls it back) and
     * refuses a rollback after a failed commit; neither leaves anything to undo here.
     */
    private static void rollbackQuietly(DbTransaction transaction) {
        try {
            transaction.rollback();
        } catch (RuntimeException alreadyEnded) {
            // nothing to roll back
        }
    }

    /*
     * Whether this pool's login may act as the owner of the schema's tables (a member that inherits its privileges)
     * or is a superuser: then none of the runtime role's limits holds (server/OPERATIONS.md, "Database roles").
     */
    private static final Statement LOGIN_AS_OWNER = Statement.named("loginAsOwner", """
            SELECT r.rolsuper OR pg_has_role(current_user, c.relowner, 'USAGE') AS owner
              FROM pg_roles r, pg_class c
             WHERE r.rolname = current_user AND c.oid = to_regclass('notificatie')
            """);

    /** Whether this pool's login is a superuser or may act as the owner of the NMC's tables ({@code StartGuard}). */
    public boolean loginMayActAsOwner() {
        return inTransaction(tx -> LOGIN_AS_OWNER
                .get(tx)
                .execute()
                .map(row -> Boolean.TRUE.equals(row.column("owner").get(Boolean.class)))
                .orElse(false));
    }

    @Override
    public void close() {
        if (health != dataSource) {
            health.close();
        }
        dataSource.close();
    }
}
