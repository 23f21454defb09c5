package nl.overheid.moz.nmc.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import nl.overheid.moz.nmc.testing.EventLogPartitions;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The NMC's login role has the runtime role's privileges and nothing more (server/ARCHITECTURE.md §5, "Database
 * roles"): a foothold in it can neither switch off the guards of the design — the transition trigger, the event
 * log's immutability — nor erase the operators' audit or edit the migration history. Connected as that login, each
 * statement below is refused by PostgreSQL's privilege check (SQLSTATE 42501), while what the NMC needs of its
 * owner's rights goes through SECURITY DEFINER functions with a pinned {@code search_path}. Every other test runs its
 * NMC as this login too ({@code TestNmc}), so a privilege the NMC lacks fails the suite.
 */
class RuntimeRoleTest {

    private static TestDatabase database;

    @BeforeAll
    static void migrate() {
        database = TestDatabase.separate();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                // the design's guards: the trigger that makes the transition function the only writer of status
                "ALTER TABLE notificatie DISABLE TRIGGER ALL",
                "DROP TRIGGER notificatie_controleer_update ON notificatie",
                "CREATE OR REPLACE FUNCTION notificatie_controleer_update() RETURNS trigger LANGUAGE plpgsql"
                        + " AS $$ BEGIN RETURN NEW; END $$",
                "ALTER FUNCTION event_partition_drop(text, timestamptz) SECURITY INVOKER",
                // the event log is append-only, partitions included
                "ALTER TABLE event DISABLE TRIGGER ALL",
                "UPDATE event SET reden = NULL",
                "DELETE FROM event",
                "DELETE FROM event_default",
                "TRUNCATE event",
                "DROP TABLE event",
                // an event carries its own transaction's id (V35): not far ahead, where the upkeep would have made a
                // partition and never another, nor backdated into a range every cursor has passed
                "INSERT INTO event (transactie_id, dv_id, notificatie, volgnummer, naar)"
                        + " VALUES ('5000000000000', gen_random_uuid(), gen_random_uuid(), 1, 'aangenomen')",
                "INSERT INTO event (transactie_id, dv_id, notificatie, volgnummer, naar)"
                        + " VALUES ('3', gen_random_uuid(), gen_random_uuid(), 1, 'aangenomen')",
                "INSERT INTO event_default (transactie_id, dv_id, notificatie, volgnummer, naar)"
                        + " VALUES ('5000000000000', gen_random_uuid(), gen_random_uuid(), 1, 'aangenomen')",
                // the operators' audit is append-only
                "UPDATE beheeractie SET toelichting = 'niets gebeurd'",
                "DELETE FROM beheeractie",
                "TRUNCATE beheeractie",
                // the migration history and the transition table are read-only
                "UPDATE flyway_schema_history SET checksum = 0",
                "DELETE FROM flyway_schema_history",
                "INSERT INTO toegestane_overgang SELECT * FROM toegestane_overgang",
                "DELETE FROM toegestane_overgang",
                "UPDATE toegestane_overgang SET naar = naar",
                "INSERT INTO flyway_schema_history SELECT * FROM flyway_schema_history",
                // no temporary table to shadow one of the schema's (the NMC makes none)
                "CREATE TEMP TABLE toegestane_overgang (van text, naar text, oorzaak text)",
                "CREATE TEMP TABLE notificatie (LIKE notificatie)",
                // no DDL at all, and no way up to the owner
                "CREATE TRIGGER buit BEFORE UPDATE ON notificatie FOR EACH ROW"
                        + " EXECUTE FUNCTION notificatie_controleer_update()",
                "CREATE TABLE buit (x text)",
                "CREATE FUNCTION buit() RETURNS int LANGUAGE sql AS 'SELECT 1'",
                "ALTER TABLE notificatie ADD COLUMN buit text",
                "CREATE INDEX buit ON notificatie (dv_id)"
            })
    void theRuntimeRoleIsRefused(String statement) throws SQLException {
        try (Connection app = database.connectAsApp();
                Statement s = app.createStatement()) {
            assertThatThrownBy(() -> s.execute(statement))
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo("42501"));
        }
    }

    @Test
    void theRuntimeLoginCannotBecomeTheSchemaOwner() throws SQLException {
        String owner = database.query(
                        "SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'notificatie'::regclass", null)
                .getFirst();
        try (Connection app = database.connectAsApp();
                Statement s = app.createStatement()) {
            assertThatThrownBy(() -> s.execute("SET ROLE \"" + owner + "\""))
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo("42501"));
        }
    }

    @Test
    void theRuntimeLoginIsNoMemberOfTheSchemaOwner() throws SQLException {
        try (Connection app = database.connectAsApp();
                Statement s = app.createStatement();
                ResultSet row = s.executeQuery("""
                        SELECT pg_has_role(current_user, c.relowner, 'MEMBER') AS owner,
                               pg_has_role(current_user, 'nmc_runtime', 'MEMBER') AS runtime,
                               r.rolsuper OR r.rolcreaterole OR r.rolcreatedb OR r.rolbypassrls AS mighty
                          FROM pg_class c, pg_roles r
                         WHERE c.oid = 'notificatie'::regclass AND r.rolname = current_user
                        """)) {
            row.next();
            assertThat(row.getBoolean("owner")).isFalse();
            assertThat(row.getBoolean("runtime")).isTrue();
            assertThat(row.getBoolean("mighty")).isFalse();
        }
    }

    @Test
    void everySecurityDefinerFunctionHasAPinnedSearchPathAndOnlyTheRuntimeRoleMayCallIt() throws SQLException {
        List<String> definers = new ArrayList<>();
        try (Connection owner = database.connect();
                Statement s = owner.createStatement();
                ResultSet rows = s.executeQuery("""
                        SELECT p.oid::regprocedure AS name, p.proconfig, p.proacl::text AS acl
                          FROM pg_proc p
                         WHERE p.pronamespace = current_schema()::regnamespace AND p.prosecdef
                        """)) {
            while (rows.next()) {
                String name = rows.getString("name");
                definers.add(name.substring(0, name.indexOf('(')));
                assertThat(rows.getString("proconfig")).as(name).matches("\\{\"search_path=[a-z_]+, pg_temp\"}");
                // no grant to PUBLIC (an ACL entry "=X/owner"), one to nmc_runtime
                assertThat(rows.getString("acl"))
                        .as(name)
                        .doesNotContain("\"=X")
                        .doesNotContain(",=X");
                assertThat(rows.getString("acl")).as(name).contains("nmc_runtime=X");
            }
        }
        assertThat(definers)
                .containsExactlyInAnyOrder(
                        "event_partition_ensure_next",
                        "event_partition_drop",
                        "event_default_adopt",
                        "event_partition_expired",
                        "beheeractie_opschonen");
    }

    /**
     * Every routine of the schema, the transition guard's trigger functions among them, runs with the schema's pinned
     * search_path (pg_temp last), so no session's temporary table shadows a table it reads.
     */
    @Test
    void everyRoutineOfTheSchemaHasAPinnedSearchPath() throws SQLException {
        List<String> routines = new ArrayList<>();
        try (Connection owner = database.connect();
                Statement s = owner.createStatement();
                ResultSet rows = s.executeQuery("""
                        SELECT p.oid::regprocedure AS name, p.proconfig
                          FROM pg_proc p
                         WHERE p.pronamespace = current_schema()::regnamespace AND p.prokind IN ('f', 'p')
                        """)) {
            while (rows.next()) {
                String name = rows.getString("name");
                routines.add(name.substring(0, name.indexOf('(')));
                assertThat(rows.getString("proconfig")).as(name).matches("\\{\"search_path=[a-z_]+, pg_temp\"}");
            }
        }
        assertThat(routines)
                .as("the trigger functions among them")
                .contains("notificatie_controleer_insert", "notificatie_controleer_update", "notificatie_eist_event");
    }

    /**
     * A foothold in the runtime role cannot erase the event log (V34): a partition below the watermark whose events
     * are younger than the floor (a year, on the database's clock) is not dropped, whatever clock the caller passes
     * and with every position deleted; one whose events are all older than the floor is.
     */
    @Test
    void theRuntimeRoleCannotDropAPartitionOfEventsYoungerThanTheFloor() throws SQLException {
        String young = closedPartitionWithAnEventOf("now()");
        try (Connection app = database.connectAsApp();
                Statement s = app.createStatement()) {
            s.execute("DELETE FROM bevestiging");
            s.execute("DELETE FROM webhookpositie");
            for (String nu : List.of("now()", "'infinity'", "now() + interval '10 years'")) {
                try (ResultSet dropped = s.executeQuery("SELECT event_partition_drop('" + young + "', " + nu + ")")) {
                    dropped.next();
                    assertThat(dropped.getBoolean(1)).as(nu).isFalse();
                }
            }
        }
        assertThat(EventLogPartitions.rangePartitions(database)).contains(young);
        assertThat(database.query("SELECT count(*) FROM " + young, null)).containsExactly("1");

        String old = closedPartitionWithAnEventOf("now() - interval '2 years'");
        try (Connection app = database.connectAsApp();
                Statement s = app.createStatement();
                ResultSet dropped = s.executeQuery("SELECT event_partition_drop('" + old + "', now())")) {
            dropped.next();
            assertThat(dropped.getBoolean(1))
                    .as("its events are past the floor")
                    .isTrue();
        }
        assertThat(EventLogPartitions.rangePartitions(database)).doesNotContain(old);
    }

    /** The log reset with the floor at its default, one event of {@code time} in a partition closed below it. */
    private static String closedPartitionWithAnEventOf(String time) {
        EventLogPartitions.reset(database);
        database.execute("UPDATE eventlog_vloer SET vloer = interval '1 year'", null);
        database.execute(
                "INSERT INTO event (tijdstip, dv_id, notificatie, volgnummer, naar)" + " VALUES (" + time
                        + ", gen_random_uuid(), gen_random_uuid(), 1, 'aangenomen')",
                null);
        return EventLogPartitions.cutAtNow(database, true);
    }

    /**
     * A DBA detaches a partition (a too-wide one, ARCHITECTURE §10) or keeps one as an archive; a migration runs
     * meanwhile. The restated privileges granted DML on every table and took it back only from event's current
     * children, so the detached one became the runtime role's to rewrite (review of the privileges, L3).
     */
    @Test
    void aDetachedPartitionStaysReadOnlyAfterThePrivilegesAreRestated() throws Exception {
        EventLogPartitions.reset(database);
        String detached = "event_p90000000000";
        database.execute(
                "CREATE TABLE " + detached + " PARTITION OF event FOR VALUES FROM ('90000000000') TO ('90010000000')",
                null);
        database.execute("ALTER TABLE event DETACH PARTITION " + detached, null);
        try {
            String script;
            try (var in = getClass().getClassLoader().getResourceAsStream("db/runtime_privileges.sql")) {
                script = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
            }
            database.execute(script, null);
            try (Connection app = database.connectAsApp();
                    Statement s = app.createStatement()) {
                for (String statement : List.of(
                        "INSERT INTO " + detached + " (transactie_id, dv_id, notificatie, volgnummer, naar)"
                                + " VALUES (pg_current_xact_id(), gen_random_uuid(), gen_random_uuid(), 1, 'aangenomen')",
                        "DELETE FROM " + detached,
                        "UPDATE " + detached + " SET reden = NULL",
                        "TRUNCATE " + detached)) {
                    assertThatThrownBy(() -> s.execute(statement))
                            .as(statement)
                            .isInstanceOfSatisfying(
                                    SQLException.class,
                                    e -> assertThat(e.getSQLState())
                                            .as(e.getMessage())
                                            .isEqualTo("42501"));
                }
            }
        } finally {
            database.execute("DROP TABLE " + detached, null);
        }
    }

    @Test
    void whatTheNmcNeedsOfTheOwnersRightsGoesThroughItsFunctions() throws SQLException {
        try (Connection app = database.connectAsApp();
                Statement s = app.createStatement()) {
            // a new partition of the event log ahead of the transaction ids (fill ratio 0: at once)
            try (ResultSet row = s.executeQuery("SELECT event_partition_ensure_next(0) AS created")) {
                row.next();
                assertThat(row.getString("created")).startsWith("event_p");
            }
            try (ResultSet row = s.executeQuery("SELECT count(*) FROM event_default_adopt()")) {
                row.next();
                assertThat(row.getLong(1)).isZero();
            }
        }
    }

    /**
     * The audit is kept as long as the notifications (seven years); V22 kept only the last year whatever the retention
     * asked, so a foothold could erase years two to seven. The floor is the owner's now (V36): seven years by default,
     * lowered by the owner for a shorter retention, never below a year, and not the runtime role's to change.
     */
    @Test
    void theAuditsRetentionKeepsWhatIsYoungerThanTheOwnersFloorWhateverItIsAsked() throws SQLException {
        database.execute("TRUNCATE beheeractie", null);
        try (Connection app = database.connectAsApp();
                Statement s = app.createStatement()) {
            for (String age : List.of("8 years", "3 years", "2 years", "11 months", "1 day")) {
                s.execute("""
                        INSERT INTO beheeractie (tijdstip, beheerder, actie, onderwerp, toelichting)
                        VALUES (now() - interval '%s', 'beheerder', 'taken-heropenen', 'taak 1', 'toets')
                        """.formatted(age));
            }
            assertThatThrownBy(() -> s.execute("UPDATE beheeractie_vloer SET vloer = interval '1 year'"))
                    .isInstanceOfSatisfying(
                            SQLException.class,
                            e -> assertThat(e.getSQLState()).as(e.getMessage()).isEqualTo("42501"));
            // asked for everything before next year: only what is more than seven years old goes
            assertThat(opschonen(s, "now() + interval '1 year'")).isEqualTo(1);
            assertThat(opschonen(s, "'infinity'")).isZero();

            // an owner whose retention is three years lowers the floor
            database.execute("UPDATE beheeractie_vloer SET vloer = interval '3 years'", null);
            assertThat(opschonen(s, "now() + interval '1 year'")).isEqualTo(1);
            try (ResultSet row = s.executeQuery("SELECT count(*) FROM beheeractie")) {
                row.next();
                assertThat(row.getLong(1)).isEqualTo(3);
            }
        } finally {
            database.execute("UPDATE beheeractie_vloer SET vloer = interval '7 years'", null);
        }
        assertThatThrownBy(() -> database.execute("UPDATE beheeractie_vloer SET vloer = interval '11 months'", null))
                .as("never below a year")
                .hasMessageContaining("beheeractie_vloer");
    }

    private static long opschonen(Statement s, String grens) throws SQLException {
        try (ResultSet row = s.executeQuery("SELECT beheeractie_opschonen(" + grens + ")")) {
            row.next();
            return row.getLong(1);
        }
    }
}
