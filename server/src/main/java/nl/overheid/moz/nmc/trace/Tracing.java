package nl.overheid.moz.nmc.trace;

import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.common.Attributes;
import io.opentelemetry.api.trace.SpanBuilder;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanId;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceId;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.ContextKey;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.exporter.otlp.http.trace.OtlpHttpSpanExporter;
import io.opentelemetry.sdk.resources.Resource;
import io.opentelemetry.sdk.trace.IdGenerator;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.SdkTracerProviderBuilder;
import io.opentelemetry.sdk.trace.data.LinkData;
import io.opentelemetry.sdk.trace.export.BatchSpanProcessor;
import io.opentelemetry.sdk.trace.export.SpanExporter;
import io.opentelemetry.sdk.trace.samplers.Sampler;
import io.opentelemetry.sdk.trace.samplers.SamplingResult;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The NMC's own traces, for operators: a span per HTTP request (SERVER), per task run and per outgoing call (CLIENT),
 * exported over OTLP/HTTP to the collector {@link TracingSettings} names. Its tracer provider is its own: never the
 * global one, and not the processing log's ({@code ldv/}), whose records may not be sampled nor these mixed in.
 *
 * <p>Sampling is decided by the trace id alone (trace-id ratio, also under a remote parent): a notification's task
 * runs, hours after its acceptance and with only its stored ids to go on, get the acceptance's decision without it
 * being stored; the DV's {@code sampled} flag is therefore not followed (W3C allows that). Local children follow
 * their parent.
 *
 * <p>The ids are the NMC's where it already has them ({@link Span}: the acceptance's span, the span of a call that its
 * {@code traceparent} and its processing-log record name), handed to the SDK's id generator, so the trace, the log
 * lines, the party and the processing log name the same spans. Off, nothing is sampled or exported, but a request
 * still gets valid ids.
 *
 * <p>Attributes are chosen here, never passed through: the HTTP method, the route <em>template</em>, status codes,
 * the party and its host, the task kind, error classes, the DV's id (pseudonymous). Never a path, a query, a header,
 * a body or an exception's message: they may hold an e-mail address, a KVK/RSIN/BSN number, a dvRef or a token.
 */
public final class Tracing implements AutoCloseable {

    static final String SCOPE = "nl.overheid.moz.nmc";

    static final AttributeKey<String> HTTP_METHOD = AttributeKey.stringKey("http.request.method");
    static final AttributeKey<String> HTTP_ROUTE = AttributeKey.stringKey("http.route");
    static final AttributeKey<Long> HTTP_STATUS = AttributeKey.longKey("http.response.status_code");
    static final AttributeKey<String> SERVER_ADDRESS = AttributeKey.stringKey("server.address");
    static final AttributeKey<Long> SERVER_PORT = AttributeKey.longKey("server.port");
    static final AttributeKey<String> ERROR_TYPE = AttributeKey.stringKey("error.type");
    static final AttributeKey<String> PEER = AttributeKey.stringKey("nmc.peer");
    static final AttributeKey<String> TASK_KIND = AttributeKey.stringKey("nmc.task.kind");
    static final AttributeKey<String> DV_ID = AttributeKey.stringKey("nmc.dv.id");

    /** The tracing a task run runs under, so a call deep below it finds it without being handed it. */
    private static final ContextKey<Tracing> CURRENT = ContextKey.named("nl.overheid.moz.nmc.trace.Tracing");

    private static final TextMapGetter<Map<String, String>> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Map<String, String> carrier) {
            return carrier.keySet();
        }

        @Override
        public String get(Map<String, String> carrier, String key) {
            return carrier == null ? null : carrier.get(key);
        }
    };

    private final PresetIds ids = new PresetIds();
    private final SdkTracerProvider provider;
    private final Tracer tracer;
    private final boolean exporting;

    /**
     * {@code exporter} null: off. Then no span is made at all (the SDK gives no ids to spans it will not record): a
     * request's ids are the NMC's own ({@link TraceContexts}), a run and its calls get none, so no call gets a
     * header it did not have.
     */
    Tracing(SpanExporter exporter, double ratio, String serviceName) {
        SdkTracerProviderBuilder builder = SdkTracerProvider.builder()
                .setResource(Resource.getDefault()
                        .merge(Resource.create(Attributes.of(AttributeKey.stringKey("service.name"), serviceName))))
                .setIdGenerator(ids)
                .setSampler(exporter == null ? Sampler.alwaysOff() : new ByTraceId(Sampler.traceIdRatioBased(ratio)));
        if (exporter != null) {
            builder.addSpanProcessor(BatchSpanProcessor.builder(exporter).build());
        }
        this.exporting = exporter != null;
        this.provider = builder.build();
        this.tracer = provider.get(SCOPE);
    }

    /** What the settings say: OTLP/HTTP (protobuf) to the endpoint, or off. */
    public static Tracing of(TracingSettings settings) {
        if (!settings.enabled()) {
            return off();
        }
        return new Tracing(
                OtlpHttpSpanExporter.builder()
                        .setEndpoint(settings.endpoint().toString())
                        .setTimeout(settings.timeout())
                        .build(),
                settings.ratio(),
                settings.serviceName());
    }

    public static Tracing off() {
        return new Tracing(null, 1, TracingSettings.DEFAULT_SERVICE_NAME);
    }

    /**
     * The SERVER span of an HTTP request, continuing the caller's {@code traceparent} when it is valid; named
     * {@code operation} (the method and the route template), never the path.
     */
    public Request request(Optional<String> traceparent, String operation, String method, String route) {
        if (!exporting) {
            return new Request(io.opentelemetry.api.trace.Span.getInvalid(), TraceContexts.acceptance(traceparent));
        }
        Context parent = W3CTraceContextPropagator.getInstance()
                .extract(
                        Context.root(),
                        traceparent.map(value -> Map.of("traceparent", value)).orElse(Map.of()),
                        HEADERS);
        SpanContext caller = io.opentelemetry.api.trace.Span.fromContext(parent).getSpanContext();
        SpanBuilder builder = tracer.spanBuilder(operation)
                .setSpanKind(SpanKind.SERVER)
                .setParent(parent)
                .setAttribute(HTTP_METHOD, method);
        if (route != null) {
            builder.setAttribute(HTTP_ROUTE, route);
        }
        io.opentelemetry.api.trace.Span span = builder.startSpan();
        SpanContext own = span.getSpanContext();
        if (!own.isValid()) {
            // the SDK gave no ids (shut down): the request still needs its own
            return new Request(span, TraceContexts.acceptance(traceparent));
        }
        return new Request(
                span, new Span(own.getTraceId(), own.getSpanId(), caller.isValid() ? caller.getSpanId() : null));
    }

    /**
     * The span of one task run ({@code kind}), current on this thread until closed: in the notification's trace
     * ({@code traceId}) as a child of its acceptance ({@code parentSpanId}) when they are known, else in a trace of
     * its own.
     */
    public Run run(String kind, String traceId, String parentSpanId, String dvId) {
        if (!exporting) {
            return new Run(io.opentelemetry.api.trace.Span.getInvalid(), Scope.noop());
        }
        SpanBuilder builder =
                tracer.spanBuilder(kind).setSpanKind(SpanKind.INTERNAL).setAttribute(TASK_KIND, kind);
        if (dvId != null) {
            builder.setAttribute(DV_ID, dvId);
        }
        boolean inTrace = traceId != null && TraceId.isValid(traceId);
        boolean withParent = inTrace && parentSpanId != null && SpanId.isValid(parentSpanId);
        if (withParent) {
            builder.setParent(Context.root()
                    .with(io.opentelemetry.api.trace.Span.wrap(SpanContext.createFromRemoteParent(
                            traceId, parentSpanId, TraceFlags.getDefault(), TraceState.getDefault()))));
        } else {
            builder.setNoParent();
        }
        io.opentelemetry.api.trace.Span span;
        if (inTrace && !withParent) {
            // the notification's trace without a known parent (a row from before the acceptance span was stored)
            ids.preset(traceId, null);
            try {
                span = builder.startSpan();
            } finally {
                ids.clear();
            }
        } else {
            span = builder.startSpan();
        }
        return new Run(span, Context.root().with(span).with(CURRENT, this).makeCurrent());
    }

    /**
     * The CLIENT span of an outgoing call to {@code peer}, a child of the task run current on this thread (none
     * outside one, or when tracing is off: {@link Call#NONE}). When the call carries a {@code traceparent} (a call
     * about a notification: {@link Span#traceparent}), the span gets exactly its ids, so the trace shows the span the
     * party and the processing log name.
     */
    public static Call call(String peer, String method, String host, int port, Optional<String> traceparent) {
        Context current = Context.current();
        Tracing tracing = current.get(CURRENT);
        if (tracing == null) {
            return Call.NONE;
        }
        return tracing.startCall(current, peer, method, host, port, traceparent);
    }

    private Call startCall(
            Context current, String peer, String method, String host, int port, Optional<String> traceparent) {
        SpanBuilder builder = tracer.spanBuilder(method + " " + peer)
                .setSpanKind(SpanKind.CLIENT)
                .setAttribute(HTTP_METHOD, method)
                .setAttribute(PEER, peer);
        if (host != null) {
            builder.setAttribute(SERVER_ADDRESS, host);
        }
        if (port > 0) {
            builder.setAttribute(SERVER_PORT, (long) port);
        }
        SpanContext sent = traceparent
                .map(value -> io.opentelemetry.api.trace.Span.fromContext(W3CTraceContextPropagator.getInstance()
                                .extract(Context.root(), Map.of("traceparent", value), HEADERS))
                        .getSpanContext())
                .filter(SpanContext::isValid)
                .orElse(null);
        if (sent == null) {
            return new Call(builder.setParent(current).startSpan(), false);
        }
        SpanContext run = io.opentelemetry.api.trace.Span.fromContext(current).getSpanContext();
        if (run.isValid() && run.getTraceId().equals(sent.getTraceId())) {
            builder.setParent(current);
        } else {
            // a call with a trace of its own (one about many notifications, such as a webhook batch): its root
            builder.setNoParent();
        }
        ids.preset(sent.getTraceId(), sent.getSpanId());
        try {
            return new Call(builder.startSpan(), true);
        } finally {
            ids.clear();
        }
    }

    @Override
    public void close() {
        provider.close();
    }

    /** Exports what is buffered now (the tests; at stop {@link #close} does it). */
    public void flush() {
        provider.forceFlush().join(10, TimeUnit.SECONDS);
    }

    /** An HTTP request's span; its ids ({@link #ids}) are the request's trace context for the logs and the store. */
    public static final class Request {

        private final io.opentelemetry.api.trace.Span span;
        private final Span ids;

        private Request(io.opentelemetry.api.trace.Span span, Span ids) {
            this.span = span;
            this.ids = ids;
        }

        /** The trace, the request's own span and the caller's span (null without a valid {@code traceparent}). */
        public Span ids() {
            return ids;
        }

        /** The DV that called (its id is pseudonymous: no person in it). */
        public void dv(String dvId) {
            span.setAttribute(DV_ID, dvId);
        }

        /** Ends the span with the response's status; a 5xx is an error (a 4xx is the caller's, by the conventions). */
        public void end(int status) {
            span.setAttribute(HTTP_STATUS, (long) status);
            if (status >= 500) {
                span.setAttribute(ERROR_TYPE, Integer.toString(status));
                span.setStatus(StatusCode.ERROR);
            }
            span.end();
        }
    }

    /** A task run's span, current on its thread until closed. */
    public static final class Run implements AutoCloseable {

        private final io.opentelemetry.api.trace.Span span;
        private final Scope scope;

        private Run(io.opentelemetry.api.trace.Span span, Scope scope) {
            this.span = span;
            this.scope = scope;
        }

        /** The run failed inside the NMC with an exception of this class (its message is not taken). */
        public void failed(Throwable e) {
            span.setAttribute(ERROR_TYPE, e.getClass().getName());
            span.setStatus(StatusCode.ERROR);
        }

        @Override
        public void close() {
            scope.close();
            span.end();
        }
    }

    /** An outgoing call's span. */
    public static final class Call {

        /** Outside a traced run: nothing recorded, no header added. */
        public static final Call NONE = new Call(io.opentelemetry.api.trace.Span.getInvalid(), true);

        private final io.opentelemetry.api.trace.Span span;
        private final boolean carried;

        private Call(io.opentelemetry.api.trace.Span span, boolean carried) {
            this.span = span;
            this.carried = carried;
        }

        /** The {@code traceparent} to add to a call that carries none (W3C out); empty when it has one or no trace. */
        public Optional<String> traceparent() {
            SpanContext context = span.getSpanContext();
            return carried || !context.isValid()
                    ? Optional.empty()
                    : Optional.of("00-" + context.getTraceId() + "-" + context.getSpanId() + "-"
                            + context.getTraceFlags().asHex());
        }

        /** The party answered with {@code status}. */
        public void answered(int status) {
            span.setAttribute(HTTP_STATUS, (long) status);
            if (status >= 400) {
                span.setAttribute(ERROR_TYPE, Integer.toString(status));
                span.setStatus(StatusCode.ERROR);
            }
            span.end();
        }

        /** No usable answer: the exception's class only. */
        public void failed(Throwable e) {
            span.setAttribute(ERROR_TYPE, e.getClass().getName());
            span.setStatus(StatusCode.ERROR);
            span.end();
        }
    }

    /**
     * The trace id decides (its ratio), under a remote parent too: the SDK's parent-based sampler would follow a
     * remote parent's flag, which a task run's parent (rebuilt from stored ids) does not have. A child of a span of
     * this process follows its parent.
     */
    private record ByTraceId(Sampler ratio) implements Sampler {

        @Override
        public SamplingResult shouldSample(
                Context parentContext,
                String traceId,
                String name,
                SpanKind spanKind,
                Attributes attributes,
                List<LinkData> parentLinks) {
            SpanContext parent =
                    io.opentelemetry.api.trace.Span.fromContext(parentContext).getSpanContext();
            if (parent.isValid() && !parent.isRemote()) {
                return parent.isSampled() ? SamplingResult.recordAndSample() : SamplingResult.drop();
            }
            return ratio.shouldSample(parentContext, traceId, name, spanKind, attributes, parentLinks);
        }

        @Override
        public String getDescription() {
            return "ByTraceId{" + ratio.getDescription() + "}";
        }
    }

    /** The SDK's ids for the span being started on this thread: the NMC's own where set, else random. */
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
            return ids != null && ids[1] != null ? ids[1] : RANDOM.generateSpanId();
        }

        @Override
        public String generateTraceId() {
            String[] ids = preset.get();
            return ids != null && ids[0] != null ? ids[0] : RANDOM.generateTraceId();
        }
    }
}
