package nl.overheid.moz.nmc.db;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import javax.sql.DataSource;
import org.flywaydb.core.Flyway;

/**
 * The NMC's one PostgreSQL database: a connection pool plus unit-of-work helpers.
 *
 * <p>Every unit of work is one transaction (no session state survives it), so the NMC can run behind a
 * transaction-pooling PgBouncer. Serialization failures and deadlocks are retried a few times.
 */
public final class Database implements AutoCloseable {

    private static final int MAX_ATTEMPTS = 3;

    private final HikariDataSource dataSource;

    private Database(HikariDataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Opens a pool for the given settings. */
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
        config.addDataSourceProperty("options", "-c statement_timeout=" + settings.statementTimeout().toMillis()
                + " -c idle_in_transaction_session_timeout=" + settings.idleInTransactionTimeout().toMillis()
                + " -c TimeZone=UTC");
        config.addDataSourceProperty("stringtype", "unspecified");
        return new Database(new HikariDataSource(config));
    }

    /** Applies the Flyway migrations shipped in the {@code nmc-sql} jar. */
    public void migrate() {
        flyway().migrate();
    }

    /** Validates that the schema equals the shipped migrations (production default). */
    public void validate() {
        flyway().validate();
    }

    private Flyway flyway() {
        return Flyway.configure()
                .dataSource(dataSource)
                .locations("classpath:db/migration")
                .load();
    }

    public DataSource dataSource() {
        return dataSource;
    }

    /**
     * Runs {@code work} in one transaction and commits it; rolls back on any exception. A serialization
     * failure or deadlock reruns the whole unit of work.
     */
    public <T> T inTransaction(UnitOfWork<T> work) {
        for (int attempt = 1; ; attempt++) {
            try (Connection connection = dataSource.getConnection()) {
                try {
                    T result = work.run(connection);
                    connection.commit();
                    return result;
                } catch (RuntimeException | SQLException e) {
                    rollbackQuietly(connection, e);
                    throw e;
                }
            } catch (SQLException e) {
                DatabaseException wrapped = new DatabaseException(e);
                if (!wrapped.retryable() || attempt >= MAX_ATTEMPTS) {
                    throw wrapped;
                }
            } catch (DatabaseException e) {
                if (!e.retryable() || attempt >= MAX_ATTEMPTS) {
                    throw e;
                }
            }
        }
    }

    /** Runs {@code work} in one transaction without a result. */
    public void inTransactionDo(VoidUnitOfWork work) {
        inTransaction(connection -> {
            work.run(connection);
            return null;
        });
    }

    private static void rollbackQuietly(Connection connection, Exception cause) {
        try {
            connection.rollback();
        } catch (SQLException rollbackFailure) {
            cause.addSuppressed(rollbackFailure);
        }
    }

    @Override
    public void close() {
        dataSource.close();
    }

    @FunctionalInterface
    public interface UnitOfWork<T> {
        T run(Connection connection) throws SQLException;
    }

    @FunctionalInterface
    public interface VoidUnitOfWork {
        void run(Connection connection) throws SQLException;
    }
}
