package nl.overheid.moz.nmc.db;

import io.helidon.config.Config;
import java.time.Duration;
import java.util.Objects;

/**
 * Connection settings of the database ({@code db} subtree of the configuration).
 *
 * @param url      JDBC URL
 * @param user     role
 * @param password password
 * @param poolSize connections in the pool
 * @param statementTimeout         server-side statement timeout of every connection
 * @param idleInTransactionTimeout server-side idle-in-transaction timeout of every connection
 * @param transactionTimeout       server-side transaction timeout of every connection (PostgreSQL 17+)
 * @param schemaMode {@code migrate} (dev, test) or {@code validate} (production default)
 * @param sessionOptions whether every connection sends the timeouts and {@code TimeZone=UTC} as the startup
 *                       parameter {@code options}; {@code false} behind a PgBouncer in transaction mode, which
 *                       refuses it: then they are set on the role (server/OPERATIONS.md)
 */
public record DatabaseSettings(
        String url,
        String user,
        String password,
        int poolSize,
        Duration statementTimeout,
        Duration idleInTransactionTimeout,
        Duration transactionTimeout,
        String schemaMode,
        boolean sessionOptions) {

    public static final int DEFAULT_POOL_SIZE = 24;
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(30);
    public static final Duration DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration DEFAULT_TRANSACTION_TIMEOUT = Duration.ofMinutes(2);

    public DatabaseSettings {
        Objects.requireNonNull(url, "db.url is required");
        if (poolSize < 2) {
            throw new IllegalArgumentException("db.pool-size must be at least 2");
        }
        for (Duration timeout : new Duration[] {statementTimeout, idleInTransactionTimeout, transactionTimeout}) {
            if (timeout.isNegative() || timeout.isZero()) {
                throw new IllegalArgumentException("db timeouts must be positive");
            }
        }
        if (!schemaMode.equals("migrate") && !schemaMode.equals("validate")) {
            throw new IllegalArgumentException("db.schema must be 'migrate' or 'validate'");
        }
    }

    /** A direct connection with the defaults: the pool, the timeouts, the session options sent, the schema validated. */
    public static DatabaseSettings of(String url, String user, String password) {
        return new DatabaseSettings(
                url,
                user,
                password,
                DEFAULT_POOL_SIZE,
                DEFAULT_STATEMENT_TIMEOUT,
                DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT,
                DEFAULT_TRANSACTION_TIMEOUT,
                "validate",
                true);
    }

    public static DatabaseSettings from(Config db) {
        return new DatabaseSettings(
                db.get("url").asString().orElse(null),
                db.get("user").asString().orElse("nmc"),
                db.get("password").asString().orElse(""),
                db.get("pool-size").asInt().orElse(DEFAULT_POOL_SIZE),
                db.get("statement-timeout").as(Duration.class).orElse(DEFAULT_STATEMENT_TIMEOUT),
                db.get("idle-in-transaction-timeout").as(Duration.class).orElse(DEFAULT_IDLE_IN_TRANSACTION_TIMEOUT),
                db.get("transaction-timeout").as(Duration.class).orElse(DEFAULT_TRANSACTION_TIMEOUT),
                db.get("schema").asString().orElse("validate"),
                db.get("session-options").asBoolean().orElse(true));
    }

    public DatabaseSettings withPoolSize(int poolSize) {
        return new DatabaseSettings(
                url,
                user,
                password,
                poolSize,
                statementTimeout,
                idleInTransactionTimeout,
                transactionTimeout,
                schemaMode,
                sessionOptions);
    }

    public DatabaseSettings withStatementTimeout(Duration statementTimeout) {
        return new DatabaseSettings(
                url,
                user,
                password,
                poolSize,
                statementTimeout,
                idleInTransactionTimeout,
                transactionTimeout,
                schemaMode,
                sessionOptions);
    }

    public DatabaseSettings withIdleInTransactionTimeout(Duration idleInTransactionTimeout) {
        return new DatabaseSettings(
                url,
                user,
                password,
                poolSize,
                statementTimeout,
                idleInTransactionTimeout,
                transactionTimeout,
                schemaMode,
                sessionOptions);
    }

    public DatabaseSettings withTransactionTimeout(Duration transactionTimeout) {
        return new DatabaseSettings(
                url,
                user,
                password,
                poolSize,
                statementTimeout,
                idleInTransactionTimeout,
                transactionTimeout,
                schemaMode,
                sessionOptions);
    }

    public DatabaseSettings withSchemaMode(String schemaMode) {
        return new DatabaseSettings(
                url,
                user,
                password,
                poolSize,
                statementTimeout,
                idleInTransactionTimeout,
                transactionTimeout,
                schemaMode,
                sessionOptions);
    }

    public DatabaseSettings withSessionOptions(boolean sessionOptions) {
        return new DatabaseSettings(
                url,
                user,
                password,
                poolSize,
                statementTimeout,
                idleInTransactionTimeout,
                transactionTimeout,
                schemaMode,
                sessionOptions);
    }
}
