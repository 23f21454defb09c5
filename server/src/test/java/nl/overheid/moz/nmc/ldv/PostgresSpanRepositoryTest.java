package nl.overheid.moz.nmc.ldv;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import nl.overheid.moz.nmc.db.Database;
import nl.overheid.moz.nmc.testing.TestLdv;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The PostgreSQL store against a real LDV database (the test cluster's {@code ldv}, this JVM's table). */
class PostgresSpanRepositoryTest {

    private static final Duration STATEMENT_TIMEOUT = Duration.ofMillis(1500);

    private PostgresSpanRepository store;

    @BeforeEach
    void open() {
        TestLdv ldv = TestLdv.get();
        store = new PostgresSpanRepository(
                Database.openSecondary(
                        "ldv-test", ldv.url(), ldv.user(), ldv.password(), 2, Duration.ofSeconds(2), STATEMENT_TIMEOUT),
                ldv.table());
        store.ensureSchema();
        ldv.reset();
    }

    @AfterEach
    void close() throws Exception {
        TestLdv.get().heal();
        TestLdv.get().reset();
        store.close();
    }

    private static List<SpanRow> rows(int count) {
        String trace = "0af7651916cd43dd8448eb211c80319c";
        return IntStream.range(0, count)
                .mapToObj(i -> new SpanRow(
                        trace,
                        "%016x".formatted(0xb7ad6b7169203331L + i),
                        "UNSET",
                        "nmc.notifynl.verzenden",
                        1_700_000_000_000L + i,
                        1_700_000_000_001L + i,
                        i == 0 ? null : "b7ad6b7169203331",
                        Map.of("dpl.core.processing_activity_id", "https://example.org/activity/" + i),
                        Map.of("service.name", "notificatiemanagementcomponent")))
                .toList();
    }

    @Test
    void aGroupIsWrittenInOneGoRootWithoutParent() {
        store.insert(rows(3));

        List<TestLdv.Row> stored = TestLdv.get().rows();
        assertThat(stored).hasSize(3);
        assertThat(stored.getFirst().parentSpanId()).isNull();
        assertThat(stored.get(1).parentSpanId()).isEqualTo("b7ad6b7169203331");
        assertThat(stored.get(2).attributes())
                .containsEntry("dpl.core.processing_activity_id", "https://example.org/activity/2");
        assertThat(stored.get(2).resource()).containsEntry("service.name", "notificatiemanagementcomponent");
        assertThat(stored.get(2).startTime()).isEqualTo(1_700_000_000_002L);
    }

    /**
     * A row the store cannot take (a NUL, which jsonb refuses) fails the whole group's one statement as a row's own
     * content (SQLSTATE class 22), so the grouped export writes the group again row by row; nothing of it is stored.
     */
    @Test
    void aRowTheStoreCannotTakeFailsTheGroupAsOneRowsFailure() {
        List<SpanRow> group = new java.util.ArrayList<>(rows(3));
        SpanRow bad = group.get(1);
        group.set(
                1,
                new SpanRow(
                        bad.traceId(),
                        bad.spanId(),
                        bad.status(),
                        bad.name(),
                        bad.startTimeMillis(),
                        bad.endTimeMillis(),
                        bad.parentSpanId(),
                        Map.of("dpl.core.processing_activity_id", "a\u0000b"),
                        bad.resource()));

        assertThatThrownBy(() -> store.insert(group))
                .isInstanceOfSatisfying(
                        SpanStore.Failure.class,
                        failure -> assertThat(failure.oneRow()).isTrue());
        assertThat(TestLdv.get().rows()).isEmpty();
        store.insert(List.of(group.getFirst(), group.getLast()));
        assertThat(TestLdv.get().rows()).hasSize(2);
    }

    /**
     * A store that is slow on every row (here 0.6 s each) but never beyond the statement timeout on one: a group of
     * eight rows is one write, bounded as a whole by {@code statement-timeout}, so it is refused as too slow and
     * nothing of it is stored, instead of taking 4.8 s while the tasks waiting on it lose their leases.
     */
    @Test
    void aGroupIsBoundedAsAWholeByTheStatementTimeoutNotRowByRow() {
        TestLdv.get().slowInserts(Duration.ofMillis(600));

        assertThatThrownBy(() -> store.insert(rows(8)))
                .isInstanceOfSatisfying(
                        SpanStore.Failure.class,
                        failure -> assertThat(failure.reason()).isEqualTo("timeout"));
        assertThat(TestLdv.get().rows()).isEmpty();

        TestLdv.get().heal();
        store.insert(rows(8));
        assertThat(TestLdv.get().rows()).hasSize(8);
    }
}
