package nl.overheid.moz.nmc.ldv;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.testing.MutableClock;
import nl.overheid.moz.nmc.trace.Span;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Records ended while a write of the store is in flight go together in the next write, one transaction, each caller
 * still told synchronously whether its own row is stored; no record fails for another's.
 */
class GroupedExportTest {

    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";

    /** A store whose first write waits until released, and that refuses the rows it is told to. */
    private static final class Store implements SpanStore {
        final List<List<String>> writes = new ArrayList<>();
        final CountDownLatch firstWriteStarted = new CountDownLatch(1);
        final CountDownLatch releaseFirstWrite = new CountDownLatch(1);
        volatile String refusedSpan;
        volatile String failWith = "error";
        volatile boolean oneRow = true;
        private boolean first = true;

        @Override
        public void ensureSchema() {}

        @Override
        public void insert(List<SpanRow> rows) {
            boolean hold;
            synchronized (this) {
                hold = first;
                first = false;
                writes.add(rows.stream().map(SpanRow::spanId).toList());
            }
            if (hold) {
                firstWriteStarted.countDown();
                try {
                    releaseFirstWrite.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if (rows.stream().anyMatch(row -> row.spanId().equals(refusedSpan))) {
                throw new Failure(failWith, "test", null, oneRow);
            }
        }

        @Override
        public void close() {}
    }

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-02T10:15:30Z"));
    private final Store store = new Store();
    private final SpanProcessingLog log =
            new SpanProcessingLog(store, "notificatiemanagementcomponent", Map.of(), clock, new NmcMetrics());
    private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

    @AfterEach
    void close() {
        threads.shutdownNow();
        log.close();
    }

    private ProcessingLog.Written record(Span span) {
        return log.record(new ProcessingLog.Processing(
                span,
                ProcessingLog.Operation.EMAIL_VERSTUREN,
                "https://register.example.nl/verwerkingsactiviteiten/nmc-test",
                new DataSubjects.DataSubject(null, null),
                clock.instant(),
                null,
                null));
    }

    /** The first record's write held, five more ended meanwhile; then the write released. */
    private List<ProcessingLog.Written> fiveBehindAHeldWrite(List<Span> five) throws Exception {
        Future<ProcessingLog.Written> first = threads.submit(() -> record(Span.childOf(TRACE, "00f067aa0ba902b7")));
        assertThat(store.firstWriteStarted.await(10, TimeUnit.SECONDS)).isTrue();
        List<Future<ProcessingLog.Written>> behind = new ArrayList<>();
        for (Span span : five) {
            behind.add(threads.submit(() -> record(span)));
        }
        Thread.sleep(300); // all five are waiting for the held write
        store.releaseFirstWrite.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS)).isInstanceOf(ProcessingLog.Written.Acknowledged.class);
        List<ProcessingLog.Written> outcomes = new ArrayList<>();
        for (Future<ProcessingLog.Written> future : behind) {
            outcomes.add(future.get(10, TimeUnit.SECONDS));
        }
        return outcomes;
    }

    /** {@code nmc_ldv_write_failures_total} of one class (the registry is the JVM's). */
    private static long failures(String fout) {
        return io.helidon.metrics.api.Metrics.globalRegistry()
                .counter("nmc.ldv.write.failures", List.of(io.helidon.metrics.api.Tag.create("fout", fout)))
                .map(io.helidon.metrics.api.Counter::count)
                .orElse(0L);
    }

    private static List<Span> spans(int count) {
        List<Span> spans = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            spans.add(Span.childOf(TRACE, "00f067aa0ba902b7"));
        }
        return spans;
    }

    @Test
    void recordsEndedWhileAWriteIsInFlightAreWrittenTogetherInTheNext() throws Exception {
        List<Span> five = spans(5);

        List<ProcessingLog.Written> outcomes = fiveBehindAHeldWrite(five);

        assertThat(outcomes).allMatch(ProcessingLog.Written.Acknowledged.class::isInstance);
        assertThat(store.writes).hasSize(2);
        assertThat(store.writes.get(0)).hasSize(1);
        assertThat(store.writes.get(1))
                .as("one write for the five")
                .containsExactlyInAnyOrderElementsOf(
                        five.stream().map(Span::spanId).toList());
    }

    @Test
    void aGroupRefusedForOneRecordIsWrittenAgainRecordByRecordSoOnlyThatOneFails() throws Exception {
        List<Span> five = spans(5);
        store.refusedSpan = five.get(2).spanId();
        long failuresBefore = failures("error");

        List<ProcessingLog.Written> outcomes = fiveBehindAHeldWrite(five);

        assertThat(failures("error")).as("counted for the refused record alone").isEqualTo(failuresBefore + 1);
        assertThat(outcomes.get(2)).isEqualTo(new ProcessingLog.Written.Unavailable("error"));
        assertThat(List.of(outcomes.get(0), outcomes.get(1), outcomes.get(3), outcomes.get(4)))
                .allMatch(ProcessingLog.Written.Acknowledged.class::isInstance);
        assertThat(store.writes).as("the held one, the group, then each alone").hasSize(7);
    }

    /**
     * A failure that is the store's own, not a row's (a ClickHouse insert whose answer was lost after its commit, a
     * standby that went read-only): written again row by row, a group of 64 became 65 inserts, each waiting out its
     * timeout, and in ClickHouse the committed rows went in twice.
     */
    @Test
    void aGroupThatFailedForTheStoreNotForARowIsNotWrittenAgainRecordByRecord() throws Exception {
        List<Span> five = spans(5);
        store.oneRow = false;
        store.refusedSpan = five.get(2).spanId();

        List<ProcessingLog.Written> outcomes = fiveBehindAHeldWrite(five);

        assertThat(outcomes).containsOnly(new ProcessingLog.Written.Unavailable("error"));
        assertThat(store.writes).as("the held one and the group").hasSize(2);
    }

    @Test
    void aStoreThatIsDownFailsTheWholeGroupAtOnceWithoutATryPerRecord() throws Exception {
        List<Span> five = spans(5);
        store.failWith = "connection";
        store.oneRow = false;
        store.refusedSpan = five.get(2).spanId();

        List<ProcessingLog.Written> outcomes = fiveBehindAHeldWrite(five);

        assertThat(outcomes).containsOnly(new ProcessingLog.Written.Unavailable("connection"));
        assertThat(store.writes).as("the held one and the group").hasSize(2);
    }
}
