package nl.overheid.moz.nmc.db;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.TimeZone;
import javax.sql.DataSource;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * The NMC's sessions run in UTC whatever the JVM's zone. The driver sends the JVM's zone when it connects, which
 * overrides {@code -c TimeZone=UTC} in the startup options, so a JVM started in Europe/Amsterdam (as the tests are)
 * had sessions whose {@code interval 'N days'} followed its daylight saving time.
 */
class SessionTimeZoneTest {

    private static final TestDatabase DB = TestDatabase.get();

    @Test
    void aPooledSessionOfTheNmcsOwnDatabaseIsInUtcThoughTheJvmIsNot() throws SQLException {
        assertThat(TimeZone.getDefault().getID())
                .as("the tests' JVM zone (pom.xml)")
                .isNotEqualTo("UTC");
        assertThat(zoneOf(DB.shared().dataSource())).isEqualTo("UTC");
        try (Connection health = DB.shared().healthConnection();
                ResultSet zone = health.createStatement().executeQuery("SHOW TimeZone")) {
            zone.next();
            assertThat(zone.getString(1)).as("the readiness checks' connection").isEqualTo("UTC");
        }
    }

    @Test
    void aSessionOfASecondaryStoreIsInUtcToo() throws SQLException {
        Database ldv = Database.openSecondary(
                "tz-test", DB.url(), DB.user(), DB.password(), 1, Duration.ofSeconds(5), Duration.ofSeconds(5));
        try {
            assertThat(zoneOf(ldv.dataSource())).isEqualTo("UTC");
        } finally {
            ldv.close();
        }
    }

    private static String zoneOf(DataSource source) throws SQLException {
        try (Connection connection = source.getConnection();
                ResultSet zone = connection.createStatement().executeQuery("SHOW TimeZone")) {
            zone.next();
            return zone.getString(1);
        }
    }
}
