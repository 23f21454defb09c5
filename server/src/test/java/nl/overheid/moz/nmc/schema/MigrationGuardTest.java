package nl.overheid.moz.nmc.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.flywaydb.core.Flyway;
import org.junit.jupiter.api.Test;

/**
 * Migrations that must refuse to run over data they cannot carry forward: V5 (LDV) refuses while
 * notifications accepted before it are still live, since they have no pseudonymised data subject for their
 * LDV records; over finished ones it runs.
 */
class MigrationGuardTest {

    private static final String DV = "d0000000-0000-4000-8000-000000000005";

    @Test
    void v5RefusesWhileANotificationFromBeforeTheLdvIsLive() throws SQLException {
        TestDatabase database = TestDatabase.unmigrated();
        flyway(database, "4").migrate();
        insertNotificatie(database, "aangenomen");

        assertThatThrownBy(() -> flyway(database, "5").migrate())
                .hasStackTraceContaining("notifications accepted before the LDV are still live");
    }

    @Test
    void v5RunsOverFinishedNotifications() throws SQLException {
        TestDatabase database = TestDatabase.unmigrated();
        flyway(database, "4").migrate();
        insertNotificatie(database, "geannuleerd");

        flyway(database, "5").migrate();

        try (Connection c = DriverManager.getConnection(database.url(), database.user(), database.password());
                Statement s = c.createStatement();
                var rows = s.executeQuery("SELECT max(version) FROM flyway_schema_history WHERE success")) {
            rows.next();
            assertThat(rows.getString(1)).isEqualTo("5");
        }
    }

    private static Flyway flyway(TestDatabase database, String target) {
        return Flyway.configure()
                .dataSource(database.url(), database.user(), database.password())
                .locations("classpath:db/migration")
                .target(target)
                .load();
    }

    /** A notification in {@code status} as V4 knew it: the row and its events, written in one transaction. */
    private static void insertNotificatie(TestDatabase database, String status) throws SQLException {
        try (Connection c = DriverManager.getConnection(database.url(), database.user(), database.password());
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("INSERT INTO dienstverlener (id, oin, naam) VALUES ('" + DV + "', '00000000000000000055', 'DV')");
            s.execute("INSERT INTO berichttype (code, notify_template_id) VALUES ('oud', gen_random_uuid())");
            String id = "a0000000-0000-4000-8000-000000000005";
            s.execute("""
                    INSERT INTO notificatie (id, dv_id, dvref_hmac, pepper_versie, payload_hmac, berichttype, regie,
                                             status, versie, ontvanger_versleuteld, personalisatie_versleuteld,
                                             datasleutel_gewrapt, kek_versie, trace_id, aangenomen_op)
                    VALUES ('%1$s', '%2$s', sha256('x'::bytea), 1, sha256('y'::bytea), 'oud', 'decentraal',
                            'aangenomen', 1, '\\x01', '\\x02', '\\x03', 1, '0af7651916cd43dd8448eb211c80319c', now())
                    """.formatted(id, DV));
            s.execute("INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, van, naar) VALUES (now(), '" + DV
                    + "', '" + id + "', 1, NULL, 'aangenomen')");
            c.commit();
            if (!status.equals("aangenomen")) {
                s.execute("UPDATE notificatie SET status = '" + status + "', versie = 2, laatste_reden = '" + status
                        + "' WHERE id = '" + id + "'");
                s.execute("INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, van, naar, reden) VALUES "
                        + "(now(), '" + DV + "', '" + id + "', 2, 'aangenomen', '" + status + "', '" + status + "')");
                c.commit();
            }
        }
    }
}
