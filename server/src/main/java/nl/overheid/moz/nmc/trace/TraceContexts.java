package nl.overheid.moz.nmc.trace;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The trace a notification's acceptance starts: continued from the DV's {@code traceparent}, or new. */
public final class TraceContexts {

    private static final Pattern TRACEPARENT = Pattern.compile("^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$");
    private static final String NO_TRACE = "0".repeat(32);
    private static final String NO_SPAN = "0".repeat(16);

    private TraceContexts() {}

    /**
     * The acceptance's own span: in the DV's trace when its {@code traceparent} is valid (the DV's span is
     * its parent), else in a new trace. Every later operation on the notification is a child of this span.
     */
    public static Span acceptance(Optional<String> traceparent) {
        Matcher matcher =
                traceparent.map(TRACEPARENT::matcher).filter(Matcher::matches).orElse(null);
        if (matcher == null
                || matcher.group(1).equals(NO_TRACE)
                || matcher.group(2).equals(NO_SPAN)) {
            return new Span(Span.newTraceId(), Span.newSpanId(), null);
        }
        return new Span(matcher.group(1), Span.newSpanId(), matcher.group(2));
    }
}
