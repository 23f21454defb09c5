package nl.overheid.moz.nmc;

import io.helidon.logging.common.LogConfig;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.db.DatabaseSettings;

/**
 * The migration step (design §5): applies the Flyway migrations shipped in the image and exits, run as the schema
 * owner against the primary (not through PgBouncer) before a new version's instances start; they only validate.
 * Reads {@code db.*} like the server ({@code DB_URL}, {@code DB_USER}, {@code DB_PASSWORD}). Exit 1 with one line
 * when it cannot.
 */
public final class Migrate {

    private static final Logger LOG = Logger.getLogger(Migrate.class.getName());

    private Migrate() {}

    public static void main(String[] args) {
        LogConfig.configureRuntime();
        try (Database database =
                Database.open(DatabaseSettings.from(Main.config().get("db")))) {
            database.migrate();
            LOG.info("schema migrated");
        } catch (RuntimeException e) {
            LOG.severe(Main.refusal(e).replace("NMC refuses to start", "NMC migration failed"));
            System.exit(1);
        }
    }
}
