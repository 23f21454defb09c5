package nl.overheid.moz.nmc.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.DatabaseSettings;

/**
 * One real PostgreSQL database per test JVM, migrated with the shipped Flyway scripts.
 *
 * <p>Where it comes from, in order: the cluster the test command started ({@code NMC_TEST_DB_URL}, see
 * {@code scripts/test}); Testcontainers ({@code postgres:17-alpine}) where a Docker engine runs; else a
 * throwaway cluster started here with {@code scripts/pg} (PostgreSQL 17 from Maven Central). Each JVM creates
 * its own database in that cluster, and {@link #reset()} truncates between tests. Never H2, never a mock.
 */
public final class TestDatabase {

    private static TestDatabase instance;

    private final String url;
    private final String user;
    private final String password;
    private final String appUser;
    private final String appPassword;

    private TestDatabase(String url, String user, String password, String appUser, String appPassword) {
        this.url = url;
        this.user = user;
        this.password = password;
        this.appUser = appUser;
        this.appPassword = appPassword;
    }

    public static synchronized TestDatabase get() {
        if (instance == null) {
            instance = create();
        }
        return instance;
    }

    /**
     * A database of its own (migrated, in the same server), for a test whose NMC must not share tables with
     * another NMC running in the same JVM.
     */
    public static TestDatabase separate() {
        return create();
    }

    /** An empty database of its own (no migration applied), for tests of the migrations themselves. */
    public static TestDatabase unmigrated() {
        return createEmpty();
    }

    /**
     * A migrated database of its own in the cluster at {@code serverUrl} (any database of it, e.g. {@code …/nmc}),
     * for a test that runs a cluster of its own (to stop it under load).
     */
    public static TestDatabase separateIn(String serverUrl, String user, String password) {
        TestDatabase database = createEmpty(new Server(serverUrl, user, password, APP_USER, APP_PASSWORD));
        try (Database migrated = database.open()) {
            migrated.migrate();
        }
        return database;
    }

    private static TestDatabase create() {
        TestDatabase database = createEmpty();
        try (Database migrated = database.open()) {
            migrated.migrate();
        }
        return database;
    }

    private static TestDatabase createEmpty() {
        return createEmpty(server());
    }

    private static TestDatabase createEmpty(Server server) {
        String name =
                "nmc_test_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection admin = DriverManager.getConnection(server.url(), server.user(), server.password());
                Statement statement = admin.createStatement()) {
            admin.setAutoCommit(true);
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("cannot create the test database in " + server.url(), e);
        }
        // The server URL's parameters (e.g. prepareThreshold=0 behind a transaction-pooling PgBouncer) are kept.
        String base = server.url().contains("?")
                ? server.url().substring(0, server.url().indexOf('?'))
                : server.url();
        String parameters =
                server.url().contains("?") ? server.url().substring(server.url().indexOf('?')) : "";
        String url = base.substring(0, base.lastIndexOf('/') + 1) + name + parameters;
        return new TestDatabase(url, server.user(), server.password(), server.appUser(), server.appPassword());
    }

    /** The NMC's own login in a cluster of scripts/pg (a member of {@code nmc_runtime} only). */
    private static final String APP_USER = "nmc_app";

    private static final String APP_PASSWORD = "nmc_app";

    /** A cluster: its schema owner (who creates and migrates the databases) and the NMC's runtime login. */
    private record Server(String url, String user, String password, String appUser, String appPassword) {}

    private static Server server() {
        String url = System.getenv("NMC_TEST_DB_URL");
        if (url != null && !url.isBlank()) {
            return new Server(
                    url,
                    env("NMC_TEST_DB_USER", "nmc"),
                    env("NMC_TEST_DB_PASSWORD", "nmc"),
                    env("NMC_TEST_DB_APP_USER", APP_USER),
                    env("NMC_TEST_DB_APP_PASSWORD", APP_PASSWORD));
        }
        if (dockerAvailable()) {
            var container = new org.testcontainers.postgresql.PostgreSQLContainer("postgres:17-alpine");
            container.start();
            // the container's user is a superuser: it makes the runtime roles scripts/pg makes
            try (Connection admin = DriverManager.getConnection(
                            container.getJdbcUrl(), container.getUsername(), container.getPassword());
                    Statement statement = admin.createStatement()) {
                statement.execute("CREATE ROLE nmc_runtime NOLOGIN");
                statement.execute(
                        "CREATE ROLE " + APP_USER + " LOGIN PASSWORD '" + APP_PASSWORD + "' IN ROLE nmc_runtime");
            } catch (SQLException e) {
                throw new IllegalStateException("cannot create the runtime roles in the test container", e);
            }
            return new Server(
                    container.getJdbcUrl(), container.getUsername(), container.getPassword(), APP_USER, APP_PASSWORD);
        }
        return localCluster();
    }

    private static boolean dockerAvailable() {
        try {
            return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable e) {
            return false;
        }
    }

    /** Starts a throwaway cluster with the project's own script and stops it when the JVM ends. */
    private static Server localCluster() {
        Path script = repositoryRoot().resolve("scripts/pg");
        try {
            Path dir = Files.createTempDirectory("nmc-test-pg");
            Process process = new ProcessBuilder(script.toString(), "start", dir.toString())
                    .redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            Map<String, String> values = new HashMap<>();
            try (BufferedReader out =
                    new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                out.lines()
                        .filter(line -> line.contains("="))
                        .forEach(line -> values.put(
                                line.substring(0, line.indexOf('=')), line.substring(line.indexOf('=') + 1)));
            }
            if (process.waitFor() != 0 || !values.containsKey("NMC_DB_URL")) {
                throw new IllegalStateException("scripts/pg could not start a PostgreSQL cluster");
            }
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    new ProcessBuilder(script.toString(), "stop", dir.toString())
                            .inheritIO()
                            .start()
                            .waitFor();
                } catch (IOException | InterruptedException ignored) {
                    // the JVM is ending; a leftover cluster in /tmp is harmless
                }
            }));
            return new Server(
                    values.get("NMC_DB_URL"),
                    values.get("NMC_DB_USER"),
                    values.get("NMC_DB_PASSWORD"),
                    values.get("NMC_DB_APP_USER"),
                    values.get("NMC_DB_APP_PASSWORD"));
        } catch (IOException e) {
            throw new IllegalStateException(
                    "no PostgreSQL for the tests: set NMC_TEST_DB_URL, run Docker, or "
                            + "let scripts/pg fetch PostgreSQL (needs mvn on PATH)",
                    e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The repository's root directory (where {@code scripts/pg} is), found upwards from the working directory. */
    public static Path repositoryRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("scripts/pg"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "cannot find scripts/pg above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value;
    }

    public String url() {
        return url;
    }

    public String user() {
        return user;
    }

    public String password() {
        return password;
    }

    /** The login the NMC under test uses: a member of {@code nmc_runtime} only, as in production. */
    public String appUser() {
        return appUser;
    }

    public String appPassword() {
        return appPassword;
    }

    /** A plain connection as the NMC's runtime login (autocommit on), for tests of what it may do. */
    public Connection connectAsApp() throws SQLException {
        return DriverManager.getConnection(url, appUser, appPassword);
    }

    public DatabaseSettings settings() {
        return DatabaseSettings.of(url, user, password).withPoolSize(6).withSchemaMode("migrate");
    }

    public Database open() {
        return Database.open(settings());
    }

    private Database shared;

    /** One pool per test JVM for the tests below the API; closed when the JVM ends. */
    public synchronized Database shared() {
        if (shared == null) {
            shared = open();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::close));
        }
        return shared;
    }

    /** A plain connection (autocommit off) for tests that poke at SQL directly. */
    public Connection connect() throws SQLException {
        Connection connection = DriverManager.getConnection(url, user, password);
        connection.setAutoCommit(false);
        return connection;
    }

    /** The first column of each row, as text; {@code parameter} binds the one {@code ?} (null: there is none). */
    public java.util.List<String> query(String sql, Object parameter) {
        java.util.List<String> result = new java.util.ArrayList<>();
        try (Connection c = connect();
                java.sql.PreparedStatement s = c.prepareStatement(sql)) {
            if (parameter != null) {
                s.setObject(1, parameter);
            }
            try (java.sql.ResultSet rows = s.executeQuery()) {
                while (rows.next()) {
                    result.add(rows.getString(1));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return result;
    }

    /**
     * One statement, committed; {@code parameter} as for {@link #query}. Without one it is sent as it is, so a
     * {@code ?} in it (a jsonb operator) is not taken for a parameter.
     */
    public void execute(String sql, Object parameter) {
        try (Connection c = connect()) {
            if (parameter == null) {
                try (Statement s = c.createStatement()) {
                    s.execute(sql);
                }
            } else {
                try (java.sql.PreparedStatement s = c.prepareStatement(sql)) {
                    s.setObject(1, parameter);
                    s.execute();
                }
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Empties the database and registers one DV allowed berichttype {@code test-bericht}, for tests that work
     * below the API; returns the DV's id.
     */
    public java.util.UUID resetWithOneDv(Database database) {
        reset();
        new nl.overheid.moz.nmc.register.Register(database)
                .upsert(
                        java.util.List.of(new nl.overheid.moz.nmc.register.Berichttype(
                                "test-bericht",
                                java.util.UUID.randomUUID(),
                                "standaard",
                                null,
                                5,
                                TestNmc.PROCESSING_ACTIVITY,
                                null)),
                        java.util.List.of(new nl.overheid.moz.nmc.register.Register.DvSeed(
                                "00000001111111111000", "DV A", java.util.List.of("test-bericht"), 10)));
        return database.inTransaction(tx -> tx.get("SELECT id FROM dienstverlener")
                .orElseThrow()
                .column("id")
                .get(java.util.UUID.class));
    }

    /** Empties every table the NMC writes, so each test starts clean. */
    public void reset() {
        try (Connection connection = connect();
                Statement statement = connection.createStatement()) {
            statement.execute("""
                    TRUNCATE event, taak, ontvangst, poging, notificatie, bevestiging, webhookpositie, verzendbudget,
                             verzendbudget_sluiting, sjabloon,
                             aannameteller,
                             dienstverlener_berichttype, dienstverlener, berichttype, pepper_gecompromitteerd,
                             beheeractie CASCADE
                    """);
            // the operator API raises it; every test starts at the epoch a new cluster has
            statement.execute("UPDATE cluster_epoch SET epoch = 1");
            connection.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot reset the test database", e);
        }
    }
}
