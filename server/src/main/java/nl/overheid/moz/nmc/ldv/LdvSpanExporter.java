package nl.overheid.moz.nmc.ldv;

import io.opentelemetry.sdk.trace.data.SpanData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.logging.LogContext;
import nl.overheid.moz.nmc.observe.NmcMetrics;

/**
 * The exporter of the processing log's spans: each finished span becomes one row of the LDV wrapper's layout
 * ({@link SpanRow}) in the store, written before {@link #write} returns. {@link GroupedExport}
 * writes inside {@code span.end()}, the spans ended meanwhile together, and hands each ending thread its outcome
 * ({@link #takeOutcome()}): the caller learns synchronously whether its row was stored, and without an outcome it
 * counts as not stored (fail-closed).
 *
 * <p>The table is created at the first write (and again after a write found it missing, as the wrapper does at every
 * start). A failed write is counted ({@code nmc_ldv_write_failures_total}) and logged as one WARNING with the span's
 * ids and the failure's class and SQLSTATEs — never the driver's message, which may quote the row.
 */
final class LdvSpanExporter {

    private static final Logger LOG = Logger.getLogger(LdvSpanExporter.class.getName());

    /** What the last write did with the span this thread ended. */
    sealed interface Outcome {
        record Stored() implements Outcome {}

        record NotStored(String reason) implements Outcome {}
    }

    private static final ThreadLocal<Outcome> OUTCOME = new ThreadLocal<>();

    private final SpanStore store;
    private final NmcMetrics metrics;
    private volatile boolean schemaReady;

    LdvSpanExporter(SpanStore store, NmcMetrics metrics) {
        this.store = store;
        this.metrics = metrics;
    }

    /** The outcome handed to this thread since the last call, and forgets it; null: none was. */
    static Outcome takeOutcome() {
        Outcome outcome = OUTCOME.get();
        OUTCOME.remove();
        return outcome;
    }

    /** Creates the table when it is missing; true when the store answered. */
    boolean ensureSchema() {
        try {
            store.ensureSchema();
            schemaReady = true;
            return true;
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** Hands {@code outcome} to this thread, whose span a write (its own or a group's) stored or not. */
    static void handOver(Outcome outcome) {
        OUTCOME.set(outcome);
    }

    /**
     * Writes the spans in one transaction of the store, and returns each one's outcome in order. When several fail
     * together for a reason that may be one record's ({@link SpanStore.Failure#oneRow}: a row the store refused), each
     * is written again alone, so no record fails for another's; a store that is down, slow, full, refusing or failing
     * otherwise fails them all at once.
     * Counted and logged per record as it finally ends (the write's duration for each, or its failure), so the metrics
     * read the same whether records are written alone or together.
     */
    List<Outcome> write(List<SpanData> spans) {
        long started = System.nanoTime();
        SpanStore.Failure failure = insert(spans);
        if (failure == null) {
            Duration took = Duration.ofNanos(System.nanoTime() - started);
            spans.forEach(span -> metrics.ldvWritten(took));
            return java.util.Collections.nCopies(spans.size(), new Outcome.Stored());
        }
        if (failure.oneRow() && spans.size() > 1) {
            return spans.stream().flatMap(span -> write(List.of(span)).stream()).toList();
        }
        return java.util.Collections.nCopies(spans.size(), failed(spans, failure.reason(), failure));
    }

    /** One transaction of the store; null when it stored every row. */
    private SpanStore.Failure insert(List<SpanData> spans) {
        try {
            List<SpanRow> rows = new ArrayList<>();
            spans.forEach(span -> rows.add(SpanRow.of(span)));
            if (!schemaReady) {
                store.ensureSchema();
                schemaReady = true;
            }
            store.insert(rows);
            return null;
        } catch (SpanStore.Failure e) {
            if (e.reason().equals("no-table")) {
                schemaReady = false; // created again by the next write, as a restart would
            }
            return e;
        } catch (RuntimeException e) {
            return new SpanStore.Failure("error", "the processing log's row could not be written", e, true);
        }
    }

    private Outcome failed(Collection<SpanData> spans, String reason, Throwable e) {
        spans.forEach(span -> metrics.ldvWriteFailed(reason));
        SpanData first = spans.iterator().next();
        try (LogContext.Scope context =
                LogContext.with(LogContext.TRACE_ID, first.getTraceId(), LogContext.SPAN_ID, first.getSpanId())) {
            LOG.warning(() -> "the processing log did not store " + spans.size() + " record(s) ("
                    + spans.stream()
                            .map(s -> s.getName() + " " + s.getTraceId() + ":" + s.getSpanId())
                            .toList()
                    + "): " + reason + " [" + sanitised(e) + "]; the call it records does not happen"
                    + (reason.equals("no-table") ? "; the next write creates the table again" : ""));
        }
        return new Outcome.NotStored(reason);
    }

    /** The cause chain as exception types and SQLSTATEs: drivers echo the statement, with the row, in messages. */
    static String sanitised(Throwable e) {
        List<String> chain = new ArrayList<>();
        for (Throwable cause = e; cause != null && chain.size() < 8; cause = cause.getCause()) {
            String link = cause.getClass().getName();
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                link += " [SQLState " + sql.getSQLState() + "]";
            }
            if (cause instanceof SpanStore.Failure failure) {
                link += " [" + failure.reason() + "]";
            }
            chain.add(link);
        }
        return String.join(" <- ", chain);
    }

    /** Closes the store (the tracer provider's shutdown, through {@link GroupedExport}). */
    void close() {
        store.close();
    }
}
