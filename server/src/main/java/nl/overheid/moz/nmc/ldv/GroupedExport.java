package nl.overheid.moz.nmc.ldv;

import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.common.CompletableResultCode;
import io.opentelemetry.sdk.trace.ReadWriteSpan;
import io.opentelemetry.sdk.trace.ReadableSpan;
import io.opentelemetry.sdk.trace.SpanProcessor;
import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.List;
import nl.overheid.moz.nmc.db.GroupCommit;

/**
 * The processing log's span processor: a span is written before {@code onEnd} returns, as behind a {@code
 * SimpleSpanProcessor}, and its outcome handed to the thread that ended it ({@link LdvSpanExporter#takeOutcome()});
 * but the spans other threads end while a write is in flight are written together after it, in one transaction
 * ({@link GroupCommit}: no timer, so a lone record is written at once). {@code SimpleSpanProcessor} exports one span
 * at a time under one lock, so every send's record waited for the commits of those queued before it — on a durable
 * store a WAL flush each (5.4 ms on average, 23 ms p99, in the engine benchmark). One write of the store is in flight
 * at a time: {@link GroupCommit} lets one group of its key be written at once.
 *
 * <p>A group is stored whole or not at all; one refused for a reason that may be one record's is written again
 * record by record ({@link LdvSpanExporter#write}), a store that is down fails the group at once (each member's call
 * is then not made).
 */
final class GroupedExport implements SpanProcessor {

    /** The most records one transaction of the store takes. */
    static final int MAX_GROUP = 64;

    private final LdvSpanExporter exporter;
    private final GroupCommit<Boolean, SpanData, LdvSpanExporter.Outcome> groups;

    GroupedExport(LdvSpanExporter exporter) {
        this.exporter = exporter;
        this.groups = new GroupCommit<>(MAX_GROUP, this::write);
    }

    private void write(List<GroupCommit.Member<SpanData, LdvSpanExporter.Outcome>> group) {
        List<LdvSpanExporter.Outcome> outcomes =
                exporter.write(group.stream().map(GroupCommit.Member::request).toList());
        for (int i = 0; i < group.size(); i++) {
            group.get(i).complete(outcomes.get(i));
        }
    }

    @Override
    public void onStart(Context parentContext, ReadWriteSpan span) {
        // written when it ends
    }

    @Override
    public boolean isStartRequired() {
        return false;
    }

    @Override
    public void onEnd(ReadableSpan span) {
        if (!span.getSpanContext().isSampled()) {
            return; // the sampler is always on: never the case
        }
        LdvSpanExporter.Outcome outcome;
        try {
            outcome = groups.submit(Boolean.TRUE, span.toSpanData());
        } catch (RuntimeException e) {
            outcome = new LdvSpanExporter.Outcome.NotStored("error");
        }
        LdvSpanExporter.handOver(outcome);
    }

    @Override
    public boolean isEndRequired() {
        return true;
    }

    @Override
    public CompletableResultCode shutdown() {
        exporter.close();
        return CompletableResultCode.ofSuccess();
    }

    @Override
    public CompletableResultCode forceFlush() {
        return CompletableResultCode.ofSuccess(); // nothing is ever held
    }
}
