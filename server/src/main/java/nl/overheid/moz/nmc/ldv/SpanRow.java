package nl.overheid.moz.nmc.ldv;

import io.opentelemetry.sdk.trace.data.SpanData;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One row of the processing log, exactly as MOZa's LDV wrapper ({@code MinBZK/moza-logboekdataverwerking},
 * {@code SpanMapper.toRow}) makes it from a finished span, so MOZa's readers of the log read the NMC's rows: the
 * SDK's lowercase hex ids as they are; the status code's name ({@code UNSET}, {@code OK}, {@code ERROR}; its
 * description is not kept); start and end in epoch milliseconds, truncated; no parent (null) for a root span; the
 * span's and the resource's attributes flattened to strings ({@code value.toString()}).
 *
 * @param parentSpanId null for a root span; the ClickHouse store writes {@code 0000000000000000} instead, as the
 *                     wrapper does
 */
public record SpanRow(
        String traceId,
        String spanId,
        String status,
        String name,
        long startTimeMillis,
        long endTimeMillis,
        String parentSpanId,
        Map<String, String> attributes,
        Map<String, String> resource) {

    public SpanRow {
        attributes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        resource = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(resource));
    }

    /** The wrapper's mapping of a finished span. */
    public static SpanRow of(SpanData span) {
        return new SpanRow(
                span.getTraceId(),
                span.getSpanId(),
                span.getStatus().getStatusCode().name(),
                span.getName(),
                TimeUnit.NANOSECONDS.toMillis(span.getStartEpochNanos()),
                TimeUnit.NANOSECONDS.toMillis(span.getEndEpochNanos()),
                span.getParentSpanContext().isValid() ? span.getParentSpanId() : null,
                strings(span.getAttributes()),
                strings(span.getResource().getAttributes()));
    }

    private static Map<String, String> strings(io.opentelemetry.api.common.Attributes attributes) {
        Map<String, String> flat = new LinkedHashMap<>();
        attributes.forEach((key, value) -> flat.put(key.getKey(), value.toString()));
        return flat;
    }

    /** The trace and span id, the only thing of a row that may be logged. */
    public String ids() {
        return traceId + ":" + spanId;
    }
}
