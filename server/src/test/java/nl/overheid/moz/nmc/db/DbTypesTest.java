package nl.overheid.moz.nmc.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.helidon.dbclient.DbRow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import nl.overheid.moz.nmc.lifecycle.NotificatieStatus;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * Java values cross DbClient and come back unchanged, whatever the JVM's time zone (the test JVM runs in
 * Europe/Amsterdam); statements that DbClient would misread are refused.
 */
class DbTypesTest {

    private static final TestDatabase DB = TestDatabase.get();
    private static final Database database = DB.shared();

    private DbRow select(String sql, String name, Object value) {
        return database.inTransaction(
                tx -> tx.createGet(sql).addParam(name, value).execute().orElseThrow());
    }

    @Test
    void anInstantComesBackTheSameToTheMicrosecond() {
        Instant instant = Instant.parse("2026-03-29T01:59:59.123456Z");
        assertThat(DbTypes.instant(select("SELECT CAST(:t AS timestamptz) AS t", "t", instant), "t"))
                .isEqualTo(instant);
        assertThat(select("SELECT to_char(CAST(:t AS timestamptz) AT TIME ZONE 'UTC', 'HH24:MI:SS') AS t", "t", instant)
                        .column("t")
                        .get(String.class))
                .as("bound as UTC, not shifted")
                .isEqualTo("01:59:59");
    }

    @Test
    void anEnumIsBoundByItsDatabaseSpelling() {
        assertThat(select("SELECT CAST(:s AS text) AS s", "s", NotificatieStatus.IN_VERZENDING)
                        .column("s")
                        .get(String.class))
                .isEqualTo("in-verzending");
    }

    @Test
    void nullsUuidsAndDurationsAreBoundAsTheirSqlValues() {
        assertThat(select("SELECT CAST(:n AS text) IS NULL AS ok", "n", null)
                        .column("ok")
                        .get(Boolean.class))
                .isTrue();
        UUID id = UUID.randomUUID();
        assertThat(DbTypes.uuid(select("SELECT CAST(:u AS uuid) AS u", "u", id), "u"))
                .isEqualTo(id);
        assertThat(select(
                                "SELECT CAST(:d AS interval) = interval '7 days 25 minutes' AS ok",
                                "d",
                                Duration.ofDays(7).plusMinutes(25))
                        .column("ok")
                        .get(Boolean.class))
                .isTrue();
    }

    @Test
    void nullElementsOfArraysAreNullAndTheWordNullIsText() {
        assertThat(select("SELECT array_to_string(CAST(:a AS text[]), '|', '<null>') AS a", "a", new String[] {
                            "x", null, "NULL", "a\"b\\c"
                        })
                        .column("a")
                        .get(String.class))
                .isEqualTo("x|<null>|NULL|a\"b\\c");
        assertThat(select("SELECT array_to_string(CAST(:a AS uuid[]), '|', '<null>') AS a", "a", new UUID[] {null})
                        .column("a")
                        .get(String.class))
                .isEqualTo("<null>");
        assertThat(select(
                                "SELECT (CAST(:a AS bytea[]))[2] IS NULL AND (CAST(:a AS bytea[]))[1] = '\\x01' AS ok",
                                "a",
                                new byte[][] {{1}, null})
                        .column("ok")
                        .get(Boolean.class))
                .isTrue();
    }

    @Test
    void arraysAreBoundAndReadBack() {
        List<UUID> ids = List.of(UUID.randomUUID(), UUID.randomUUID());
        assertThat(DbTypes.uuids(select("SELECT CAST(:a AS uuid[]) AS a", "a", ids.toArray(new UUID[0])), "a"))
                .isEqualTo(ids);
        assertThat(DbTypes.uuids(
                        select("SELECT CAST(NULL AS uuid[]) AS a WHERE CAST(:x AS text) IS NULL", "x", null), "a"))
                .as("a NULL array reads as empty")
                .isEmpty();
        byte[][] hmacs = {{1, 2, (byte) 0xff}, {}};
        assertThat(select(
                                "SELECT encode((CAST(:b AS bytea[]))[1], 'hex') || '/' || cardinality(CAST(:b AS bytea[])) AS b",
                                "b",
                                hmacs)
                        .column("b")
                        .get(String.class))
                .isEqualTo("0102ff/2");
    }

    @Test
    void aStatementWithAPostgresCastOrABadNameIsRefused() {
        assertThatThrownBy(() -> Statement.named("eventRead", "SELECT :x::xid8"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("CAST");
        assertThatThrownBy(() -> Statement.named("event read", "SELECT 1"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aParameterTheStatementNeedsButNobodyBoundIsAnError() {
        Statement statement = Statement.named("testTwoParameters", "SELECT CAST(:a AS int) + CAST(:b AS int) AS s");
        assertThatThrownBy(() -> database.inTransaction(
                        tx -> statement.get(tx).addParam("a", 1).execute()))
                .hasMessageContaining("b");
        int sum = database.inTransaction(tx -> statement
                .get(tx)
                .addParam("a", 1)
                .addParam("b", 2)
                .execute()
                .map(row -> DbTypes.integer(row, "s"))
                .orElseThrow());
        assertThat(sum).isEqualTo(3);
    }

    @Test
    void aSerializationFailureIsRetriedAndOtherErrorsAreNot() {
        java.util.concurrent.atomic.AtomicInteger runs = new java.util.concurrent.atomic.AtomicInteger();
        Integer result = database.inTransaction(tx -> {
            if (runs.incrementAndGet() == 1) {
                tx.createQuery("SELECT 1").execute().toList();
                throw new RuntimeException(new java.sql.SQLException("simulated", SqlStates.SERIALIZATION_FAILURE));
            }
            return 7;
        });
        assertThat(result).isEqualTo(7);
        assertThat(runs.get()).isEqualTo(2);
        runs.set(0);
        assertThatThrownBy(() -> database.inTransaction(tx -> {
                    runs.incrementAndGet();
                    return tx.createGet("SELECT 1 / 0 AS x").execute();
                }))
                .satisfies(e -> assertThat(SqlStates.of(e)).contains("22012"));
        assertThat(runs.get()).as("division by zero is not retried").isEqualTo(1);
    }
}
