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
 * LDV records; over finished ones it runs. V14 (MOZa's pseudonym) refuses while a notification with the old
 * pseudonym still has work that writes records about it; over finished ones it clears the old pseudonym and
 * spells the type anew.
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

    @Test
    void v14RefusesWhileANotificationWithTheOldPseudonymStillHasWork() throws SQLException {
        TestDatabase database = TestDatabase.unmigrated();
        flyway(database, "13").migrate();
        insertNotificatie(database, "aangenomen", ", payload_pepper_versie", ", 1");
        oldPseudonym(database, "kvk-nummer;hmac-sha256;pepper-v1");
        sql(
                database,
                "INSERT INTO taak (soort, dv_id, notificatie, due, payload, budget) VALUES ('verzenden', '" + DV
                        + "', '" + ID + "', now(), '{}', 'standaard')");

        assertThatThrownBy(() -> flyway(database, "14").migrate())
                .hasStackTraceContaining("notifications with an old LDV pseudonym still have work");
    }

    @Test
    void v14ClearsTheOldPseudonymOfFinishedNotificationsAndHoldsNewOnesToMozasForm() throws SQLException {
        TestDatabase database = TestDatabase.unmigrated();
        flyway(database, "13").migrate();
        insertNotificatie(database, "geannuleerd", ", payload_pepper_versie", ", 1");
        oldPseudonym(database, "emailadres;hmac-sha256;pepper-v1");
        sql(
                database,
                "INSERT INTO taak (soort, dv_id, notificatie, due, payload) VALUES ('wissen', '" + DV + "', '" + ID
                        + "', now(), '{}')");

        flyway(database, "14").migrate();

        assertThat(database.query(
                        "SELECT coalesce(ldv_betrokkene, '-') || ' ' || ldv_betrokkene_type FROM notificatie", null))
                .containsExactly("- EMAIL");
        sql(
                database,
                "UPDATE notificatie SET ldv_betrokkene = 'q1ZqJ8p0a7w2QmGxWQ4lX3s0HkA3rV9cYtB8nE5uJzM=',"
                        + " ldv_betrokkene_type = 'KVK'");
        assertThatThrownBy(() -> sql(database, "UPDATE notificatie SET ldv_betrokkene = '" + "ab".repeat(32) + "'"))
                .as("the old hex form no longer fits")
                .hasStackTraceContaining("notificatie_ldv_betrokkene_check");
        assertThatThrownBy(() -> sql(database, "UPDATE notificatie SET ldv_betrokkene_type = 'KVK;hmac-sha256'"))
                .hasStackTraceContaining("notificatie_ldv_betrokkene_type_check");
    }

    private static final String ID = "a0000000-0000-4000-8000-000000000005";

    private static void oldPseudonym(TestDatabase database, String type) throws SQLException {
        sql(
                database,
                "UPDATE notificatie SET ldv_betrokkene = '" + "0f".repeat(32) + "', ldv_betrokkene_type = '" + type
                        + "', ldv_pepper_versie = 1, aanname_span_id = '00f067aa0ba902b7'");
    }

    private static void sql(TestDatabase database, String statement) throws SQLException {
        try (Connection c = DriverManager.getConnection(database.url(), database.user(), database.password());
                Statement s = c.createStatement()) {
            s.execute(statement);
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
        insertNotificatie(database, status, "", "");
    }

    /** The same in a later schema, with the columns it requires meanwhile ({@code , a, b} and their values). */
    private static void insertNotificatie(TestDatabase database, String status, String columns, String values)
            throws SQLException {
        try (Connection c = DriverManager.getConnection(database.url(), database.user(), database.password());
                Statement s = c.createStatement()) {
            c.setAutoCommit(false);
            s.execute("INSERT INTO dienstverlener (id, oin, naam) VALUES ('" + DV + "', '00000000000000000055', 'DV')");
            // from V5 on a berichttype names its processing activity
            s.execute("DO $$ BEGIN IF EXISTS (SELECT 1 FROM information_schema.columns WHERE table_name = 'berichttype'"
                    + " AND column_name = 'verwerkingsactiviteit') THEN EXECUTE 'INSERT INTO berichttype (code,"
                    + " notify_template_id, verwerkingsactiviteit) VALUES (''oud'', gen_random_uuid(), ''urn:x'')';"
                    + " ELSE EXECUTE 'INSERT INTO berichttype (code, notify_template_id) VALUES (''oud'',"
                    + " gen_random_uuid())'; END IF; END $$");
            String id = "a0000000-0000-4000-8000-000000000005";
            s.execute("""
                    INSERT INTO notificatie (id, dv_id, dvref_hmac, pepper_versie, payload_hmac, berichttype, regie,
                                             status, versie, ontvanger_versleuteld, personalisatie_versleuteld,
                                             datasleutel_gewrapt, kek_versie, trace_id, aangenomen_op%3$s)
                    VALUES ('%1$s', '%2$s', sha256('x'::bytea), 1, sha256('y'::bytea), 'oud', 'decentraal',
                            'aangenomen', 1, '\\x01', '\\x02', '\\x03', 1, '0af7651916cd43dd8448eb211c80319c', now()%4$s)
                    """.formatted(id, DV, columns, values));
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
