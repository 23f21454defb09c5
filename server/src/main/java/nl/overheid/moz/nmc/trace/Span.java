package nl.overheid.moz.nmc.trace;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One operation within a notification's trace (W3C Trace Context): an outgoing call and the LDV record
 * about it share it. {@code parentSpanId} is the acceptance's span.
 */
public record Span(String traceId, String spanId, String parentSpanId) {

    private static final Pattern TRACE_ID = Pattern.compile("^[0-9a-f]{32}$");
    private static final Pattern SPAN_ID = Pattern.compile("^[0-9a-f]{16}$");
    private static final SecureRandom RANDOM = new SecureRandom();

    public Span {
        Objects.requireNonNull(traceId);
        if (!TRACE_ID.matcher(traceId).matches()
                || !SPAN_ID.matcher(spanId).matches()
                || (parentSpanId != null && !SPAN_ID.matcher(parentSpanId).matches())) {
            throw new IllegalArgumentException("not a W3C trace or span id");
        }
    }

    /** A new operation in the trace of a notification whose acceptance had span {@code parentSpanId}. */
    public static Span childOf(String traceId, String parentSpanId) {
        return new Span(traceId, newSpanId(), parentSpanId);
    }

    /** The first operation of a new trace (a call about many notifications, such as a webhook batch). */
    public static Span root() {
        return new Span(newTraceId(), newSpanId(), null);
    }

    /** The {@code traceparent} header that continues this trace in the call this span stands for. */
    public String traceparent() {
        return "00-" + traceId + "-" + spanId + "-01";
    }

    /** 8 random bytes as lowercase hex, never all zero (invalid in W3C Trace Context). */
    public static String newSpanId() {
        return randomHex(8);
    }

    /** 16 random bytes as lowercase hex, never all zero. */
    public static String newTraceId() {
        return randomHex(16);
    }

    private static String randomHex(int bytes) {
        byte[] value = new byte[bytes];
        do {
            RANDOM.nextBytes(value);
        } while (java.util.Arrays.equals(value, new byte[bytes]));
        return HexFormat.of().formatHex(value);
    }
}
