package nl.overheid.moz.nmc.ldv;

import io.helidon.config.Config;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Where the processing log is written ({@code ldv} subtree): which store, and how to reach it. Both stores' keys are
 * read whichever is chosen (so a typo in the other is still found); only the chosen one's are required.
 *
 * @param store       {@code postgresql} (the local run, the tests, and organisations that prefer it) or
 *                    {@code clickhouse} (MOZa's LDV store)
 * @param serviceName the resource's {@code service.name} in every record
 * @param postgresql  the PostgreSQL store
 * @param clickhouse  the ClickHouse store
 */
public record LdvSettings(Store store, String serviceName, Postgres postgresql, ClickHouse clickhouse) {

    /** The name MOZa's NMC gives its records ({@code logboekdataverwerking.service-name}), so readers find both. */
    public static final String DEFAULT_SERVICE_NAME = "notificatiemanagementcomponent";

    public static final String DEFAULT_TABLE = "spans";
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(2);
    public static final Duration DEFAULT_STATEMENT_TIMEOUT = Duration.ofSeconds(2);
    public static final int DEFAULT_POOL_SIZE = 2;

    /** The wrapper's rule for a table name ({@code TableNames}): a schema may come first. */
    private static final Pattern TABLE = Pattern.compile("^[a-zA-Z_][a-zA-Z0-9_.]*$");

    /** The stores the wrapper writes to. */
    public enum Store {
        POSTGRESQL,
        CLICKHOUSE
    }

    /**
     * The PostgreSQL store: a database and a role of its own (the NMC's role cannot read it, this one cannot touch the
     * NMC's tables).
     *
     * @param url              JDBC URL of the LDV database
     * @param user             its role
     * @param password         its password (secret)
     * @param table            the table, created at start when missing (the wrapper's layout)
     * @param poolSize         connections kept
     * @param connectTimeout   bound of getting a connection (also of a new one to a store that is down)
     * @param statementTimeout bound of one write, server-side, and so of the call that waits for it
     */
    public record Postgres(
            String url,
            String user,
            String password,
            String table,
            int poolSize,
            Duration connectTimeout,
            Duration statementTimeout) {}

    /**
     * The ClickHouse store (HTTP, {@code com.clickhouse:client-v2}).
     *
     * @param endpoint its HTTP endpoint, e.g. {@code https://clickhouse.example.nl:8443}
     * @param user     its user
     * @param password its password (secret)
     * @param database the database of the table
     * @param table    the table, created at start when missing (the wrapper's layout)
     * @param timeout  bound of one write
     */
    public record ClickHouse(
            String endpoint, String user, String password, String database, String table, Duration timeout) {}

    public LdvSettings {
        switch (store) {
            case POSTGRESQL -> {
                if (postgresql.url() == null || !postgresql.url().startsWith("jdbc:postgresql:")) {
                    throw new IllegalArgumentException(
                            "ldv.postgresql.url is required (a jdbc:postgresql: URL) with ldv.store postgresql");
                }
            }
            case CLICKHOUSE -> {
                if (clickhouse.endpoint() == null) {
                    throw new IllegalArgumentException("ldv.clickhouse.endpoint is required with ldv.store clickhouse");
                }
                URI endpoint = URI.create(clickhouse.endpoint());
                if (endpoint.getScheme() == null || endpoint.getHost() == null) {
                    throw new IllegalArgumentException("ldv.clickhouse.endpoint must be an absolute http(s) URL");
                }
            }
        }
        for (String table : new String[] {postgresql.table(), clickhouse.table(), clickhouse.database()}) {
            if (!TABLE.matcher(table).matches()) {
                throw new IllegalArgumentException("ldv: not a table or database name: " + table);
            }
        }
        if (postgresql.poolSize() < 1) {
            throw new IllegalArgumentException("ldv.postgresql.pool-size must be positive");
        }
        for (Duration timeout :
                new Duration[] {postgresql.connectTimeout(), postgresql.statementTimeout(), clickhouse.timeout()}) {
            if (timeout.compareTo(Duration.ofMillis(250)) < 0) {
                throw new IllegalArgumentException("ldv timeouts must be at least 250 ms");
            }
        }
        if (serviceName == null || serviceName.isBlank()) {
            throw new IllegalArgumentException("ldv.service-name must not be empty");
        }
    }

    public static LdvSettings from(Config ldv) {
        String store = ldv.get("store").asString().orElse("postgresql");
        Config pg = ldv.get("postgresql");
        Config ch = ldv.get("clickhouse");
        return new LdvSettings(
                switch (store.toLowerCase(Locale.ROOT)) {
                    case "postgresql" -> Store.POSTGRESQL;
                    case "clickhouse" -> Store.CLICKHOUSE;
                    default ->
                        throw new IllegalArgumentException("ldv.store must be postgresql or clickhouse, not " + store);
                },
                ldv.get("service-name").asString().orElse(DEFAULT_SERVICE_NAME),
                new Postgres(
                        pg.get("url").asString().orElse(null),
                        pg.get("user").asString().orElse("ldv"),
                        pg.get("password").asString().orElse(""),
                        pg.get("table").asString().orElse(DEFAULT_TABLE),
                        pg.get("pool-size").asInt().orElse(DEFAULT_POOL_SIZE),
                        pg.get("connect-timeout").as(Duration.class).orElse(DEFAULT_CONNECT_TIMEOUT),
                        pg.get("statement-timeout").as(Duration.class).orElse(DEFAULT_STATEMENT_TIMEOUT)),
                new ClickHouse(
                        ch.get("endpoint").asString().orElse(null),
                        ch.get("user").asString().orElse("default"),
                        ch.get("password").asString().orElse(""),
                        ch.get("database").asString().orElse("default"),
                        ch.get("table").asString().orElse(DEFAULT_TABLE),
                        ch.get("timeout").as(Duration.class).orElse(DEFAULT_STATEMENT_TIMEOUT)));
    }
}
