package nl.overheid.moz.nmc.trace;

import java.util.logging.Logger;
import nl.overheid.moz.nmc.logging.LogContext;

/**
 * How a failed call to a party (NotifyNL, the Profielservice) is logged: one WARNING an operator can act
 * on, naming the call, the status or a short reason, the span (so the call, its {@code traceparent} and its LDV
 * record can be found together) and what happens next. Never the request, the answer's body or an exception's
 * message: they may quote the e-mail address or the KVK number.
 */
public final class FailedCalls {

    private FailedCalls() {}

    /** Logs that {@code call} failed for {@code reason}; {@code next} says what happens now. */
    public static void warn(Logger log, String call, String reason, Span span, String next) {
        try (LogContext.Scope context =
                LogContext.with(LogContext.TRACE_ID, span.traceId(), LogContext.SPAN_ID, span.spanId())) {
            log.warning(() -> call + " failed: " + reason + " (trace " + span.traceId() + ", span " + span.spanId()
                    + "); " + next);
        }
    }

    /** An HTTP status as a reason, with what an operator should check for the ones that are ours to fix. */
    public static String status(int status, String credential) {
        return "HTTP " + status
                + switch (status) {
                    case 401, 403 -> " (check " + credential + ")";
                    case 429 -> " (the party's rate limit)";
                    default -> "";
                };
    }

    /** An exception as a reason (no connection, a time-out, an unreadable answer): its type only. */
    public static String exception(Throwable e) {
        return "no usable answer (" + e.getClass().getSimpleName() + ")";
    }
}
