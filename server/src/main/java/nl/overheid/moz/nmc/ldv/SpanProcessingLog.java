package nl.overheid.moz.nmc.ldv;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.common.AttributesBuilder;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.IdGenerator;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Clock;
import java.time.Instant;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import nl.overheid.moz.nmc.observe.NmcMetrics;
import nl.overheid.moz.nmc.trace.Span;

/**
 * The processing log as MOZa's LDV wrapper writes it: every record is an OpenTelemetry span of a dedicated tracer
 * provider — never the global one — with an always-on sampler (the standard forbids sampling: an inbound {@code
 * traceparent} flagged unsampled cannot drop a record) and a processor that writes synchronously ({@link
 * GroupedExport}, {@link LdvSpanExporter}): ending the span writes its row, together with the rows other threads end
 * meanwhile, and the caller knows before its call whether the row is stored.
 *
 * <p>A record's trace and span ids are the NMC's own ({@link Span}: the notification's trace, a new span of the call,
 * the acceptance's span as parent), handed to the SDK's id generator for the span being started, so the call's
 * {@code traceparent} names its record. Start and end are the moment of writing (the processing is decided), on the
 * NMC's clock; the status {@code UNSET} (the standard's default: processed without an internal error). Attributes:
 * {@code dpl.core.processing_activity_id}, {@code dpl.core.data_subject_id} and {@code _type}, {@code
 * dpl.core.foreign_operation.processor} (the party called, its configured address without query or credentials) and,
 * through FSC, {@code dpl.core.foreign_operation.fsc_transaction_id}; nothing else. A call that then fails gets a
 * second record, a child of the first with the same attributes, status {@code ERROR}, {@code exception.type} = the
 * failure's class and {@code exception.message} naming it: the first row is never changed (the stores append;
 * ClickHouse cannot update).
 *
 * <p>One write of the store is in flight at a time ({@code GroupedExport}, through {@code db/GroupCommit}); the records that come meanwhile go
 * together in the next one, so one slow write holds up the others of this instance only for its own length; every
 * write is bounded by the store's timeouts.
 */
public final class SpanProcessingLog implements ProcessingLog {

    private static final Logger LOG = Logger.getLogger(SpanProcessingLog.class.getName());
    /** The instrumentation scope of the processing log's tracer. */
    static final String SCOPE = "nl.overheid.moz.nmc.ldv";

    static final AttributeKey<String> PROCESSING_ACTIVITY = AttributeKey.stringKey("dpl.core.processing_activity_id");
    static final AttributeKey<String> DATA_SUBJECT = AttributeKey.stringKey("dpl.core.data_subject_id");
    static final AttributeKey<String> DATA_SUBJECT_TYPE = AttributeKey.stringKey("dpl.core.data_subject_id_type");
    /** The data subject of a record whose subject is no longer known (its pseudonym erased), as MOZa writes it. */
    static final String UNKNOWN_SUBJECT = "onbekend";

    static final String UNKNOWN_SUBJECT_TYPE = "ONBEKEND";
    static final AttributeKey<String> PROCESSOR = AttributeKey.stringKey("dpl.core.foreign_operation.processor");
    static final AttributeKey<String> FSC_TRANSACTION =
            AttributeKey.stringKey("dpl.core.foreign_operation.fsc_transaction_id");
    static final AttributeKey<String> EXCEPTION_TYPE = AttributeKey.stringKey("exception.type");
    static final AttributeKey<String> EXCEPTION_MESSAGE = AttributeKey.stringKey("exception.message");

    private final PresetIds ids = new PresetIds();
    private final SdkTracerProvider provider;
    private final Tracer tracer;
    private final Map<Party, String> processors;
    private final NmcMetrics metrics;

    /**
     * @param processors the address of each party the store's configuration knows (NotifyNL, the Profielservice)
     */
    public SpanProcessingLog(
            SpanStore store, String serviceName, Map<Party, String> processors, Clock clock, NmcMetrics metrics) {
        LdvSpanExporter exporter = new LdvSpanExporter(store, metrics);
        this.metrics = metrics;
        this.processors = new EnumMap<>(Party.class);
        processors.forEach((party, url) -> {
            String processor = processor(url);
            if (processor == null) {
                // a record that names no party would pass unnoticed: refused at start instead
                throw new IllegalArgumentException(
                        "the processing log's party " + party + " is no URI (ldv.processor)");
            }
            this.processors.put(party, processor);
        });
        this.provider = SdkTracerProvider.builder()
                .setResource(Resource.getDefault()
                        .merge(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), serviceName))))
                .setSampler(Sampler.alwaysOn())
                .setIdGenerator(ids)
                .setClock(new NmcClock(clock))
                .addSpanProcessor(new GroupedExport(exporter))
                .build();
        this.tracer = provider.get(SCOPE);
        if (!exporter.ensureSchema()) {
            LOG.warning("the processing log's store cannot be reached at start: nothing is sent until it can"
                    + " (notifications are still accepted)");
        }
    }

    /** The store the settings choose, with the parties' addresses from their own settings. */
    public static SpanProcessingLog of(
            LdvSettings settings, String notifyNlUrl, String profielserviceUrl, Clock clock, NmcMetrics metrics) {
        SpanStore store = switch (settings.store()) {
            case POSTGRESQL -> new PostgresSpanRepository(settings.postgresql());
            case CLICKHOUSE -> new ClickHouseSpanRepository(settings.clickhouse());
        };
        return new SpanProcessingLog(
                store,
                settings.serviceName(),
                Map.of(Party.NOTIFYNL, notifyNlUrl, Party.PROFIELSERVICE, profielserviceUrl),
                clock,
                metrics);
    }

    @Override
    public Written record(Processing p) {
        return switch (write(p.span(), p.operation().recordName(), attributes(p).build(), null, p.at())) {
            case LdvSpanExporter.Outcome.Stored stored -> new Written.Acknowledged();
            case LdvSpanExporter.Outcome.NotStored notStored -> new Written.Unavailable(notStored.reason());
        };
    }

    @Override
    public void failed(Processing p, String reason, Instant at) {
        Span error = Span.childOf(p.span().traceId(), p.span().spanId());
        Attributes attributes = attributes(p)
                .put(EXCEPTION_TYPE, reason)
                .put(EXCEPTION_MESSAGE, "the call failed: " + reason)
                .build();
        // the exporter counts and logs a failure; the processing's own record stands (written before the call)
        write(error, p.operation().recordName(), attributes, reason, at);
    }

    private AttributesBuilder attributes(Processing p) {
        AttributesBuilder attributes = Attributes.builder().put(PROCESSING_ACTIVITY, p.processingActivity());
        if (p.subject() != null && p.subject().id() != null) {
            attributes.put(DATA_SUBJECT, p.subject().id());
            attributes.put(
                    DATA_SUBJECT_TYPE, p.subject().type() != null ? p.subject().type() : UNKNOWN_SUBJECT_TYPE);
        } else {
            // The standard wants a data subject in every record; an erased one is MOZa's sentinel, which consumers
            // filter on (Profielservice LogboekConstants.GEEN_SUBJECT, 3481f90).
            attributes.put(DATA_SUBJECT, UNKNOWN_SUBJECT);
            attributes.put(DATA_SUBJECT_TYPE, UNKNOWN_SUBJECT_TYPE);
        }
        String processor = p.processor() != null
                ? processor(p.processor())
                : processors.get(p.operation().party());
        if (processor != null) {
            attributes.put(PROCESSOR, processor);
        }
        if (p.fscTransactionId() != null) {
            attributes.put(FSC_TRANSACTION, p.fscTransactionId());
        }
        return attributes;
    }

    /** Writes one span with exactly {@code span}'s ids; {@code error} non-null: status ERROR. */
    private LdvSpanExporter.Outcome write(Span span, String name, Attributes attributes, String error, Instant at) {
        long epochNanos = TimeUnit.SECONDS.toNanos(at.getEpochSecond()) + at.getNano();
        LdvSpanExporter.takeOutcome(); // nothing stale from an earlier write on this (pooled) thread
        ids.preset(span.traceId(), span.spanId());
        try {
            SpanBuilder builder = tracer.spanBuilder(name)
                    .setSpanKind(SpanKind.CLIENT)
                    .setStartTimestamp(epochNanos, TimeUnit.NANOSECONDS)
                    .setAllAttributes(attributes);
            if (span.parentSpanId() == null) {
                builder.setNoParent();
            } else {
                builder.setParent(Context.root()
                        .with(io.opentelemetry.api.trace.Span.wrap(SpanContext.createFromRemoteParent(
                                span.traceId(),
                                span.parentSpanId(),
                                TraceFlags.getSampled(),
                                TraceState.getDefault()))));
            }
            io.opentelemetry.api.trace.Span started = builder.startSpan();
            if (!started.getSpanContext().getSpanId().equals(span.spanId())
                    || !started.getSpanContext().getTraceId().equals(span.traceId())) {
                throw new IllegalStateException("the processing log's span did not get the call's ids");
            }
            if (error != null) {
                started.setStatus(StatusCode.ERROR, error);
            }
            started.end(epochNanos, TimeUnit.NANOSECONDS);
        } finally {
            ids.clear();
        }
        LdvSpanExporter.Outcome outcome = LdvSpanExporter.takeOutcome();
        if (outcome == null) {
            // no export ran on this thread (a processor that is not synchronous): not known to be stored, so not
            metrics.ldvWriteFailed("unacknowledged");
            return new LdvSpanExporter.Outcome.NotStored("unacknowledged");
        }
        return outcome;
    }

    /** A party's address as a record names it: scheme, host, port and path; no credentials, query or fragment. */
    static String processor(String url) {
        try {
            URI uri = URI.create(url);
            if (uri.getScheme() == null) {
                return null;
            }
            if (uri.isOpaque()) {
                // a URN names a party: no query or fragment, as for an address
                return uri.getScheme() + ":" + uri.getSchemeSpecificPart().split("\\?", 2)[0];
            }
            if (uri.getHost() == null) {
                return null; // an authority Java cannot read as a host: refused, never written mangled
            }
            return new URI(uri.getScheme(), null, uri.getHost(), uri.getPort(), uri.getPath(), null, null).toString();
        } catch (IllegalArgumentException | URISyntaxException e) {
            return null;
        }
    }

    @Override
    public void close() {
        provider.close();
    }

    /** The SDK's ids for the span being started on this thread: the NMC's own, or random when none is set. */
    private static final class PresetIds implements IdGenerator {

        private static final IdGenerator RANDOM = IdGenerator.random();
        private final ThreadLocal<String[]> preset = new ThreadLocal<>();

        void preset(String traceId, String spanId) {
            preset.set(new String[] {traceId, spanId});
        }

        void clear() {
            preset.remove();
        }

        @Override
        public String generateSpanId() {
            String[] ids = preset.get();
            return ids != null ? ids[1] : RANDOM.generateSpanId();
        }

        @Override
        public String generateTraceId() {
            String[] ids = preset.get();
            return ids != null ? ids[0] : RANDOM.generateTraceId();
        }
    }

    /** The NMC's clock for the SDK (the records' times come from it explicitly too). */
    private record NmcClock(Clock clock) implements io.opentelemetry.sdk.common.Clock {

        @Override
        public long now() {
            Instant now = clock.instant();
            return TimeUnit.SECONDS.toNanos(now.getEpochSecond()) + now.getNano();
        }

        @Override
        public long nanoTime() {
            return System.nanoTime();
        }
    }
}
