package nl.overheid.moz.nmc.logging;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What the current thread is working on, for the log lines it writes: the trace and span, the notification, the
 * task kind and the DV. Ids only, never personal data. The task worker sets it around every task it executes,
 * the HTTP filter around every request; a handler adds what it learns (a span) with {@link #with}. Each task
 * and request runs on its own (virtual) thread, so a thread-local is exact; every scope is closed in the same
 * thread, restoring what was there before.
 */
public final class LogContext {

    public static final String TRACE_ID = "trace_id";
    public static final String SPAN_ID = "span_id";
    public static final String NOTIFICATIE_ID = "notificatie_id";
    public static final String TAAK_SOORT = "taak_soort";
    public static final String DV_ID = "dv_id";
    /** FSC's id of one call (inbound from a DV's Outway, or outbound to the Profielservice): a UUID. */
    public static final String FSC_TRANSACTION_ID = "fsc_transaction_id";

    private static final ThreadLocal<Map<String, String>> CURRENT = ThreadLocal.withInitial(Map::of);

    private LogContext() {}

    /** A scope that restores the previous context when closed. */
    public interface Scope extends AutoCloseable {
        @Override
        void close();
    }

    /** Adds {@code key = value} (null values are left out) until the scope closes. */
    public static Scope with(String key, Object value) {
        return with(key, value, null, null);
    }

    /** Adds two entries (null values are left out) until the scope closes. */
    public static Scope with(String key, Object value, String key2, Object value2) {
        Map<String, String> previous = CURRENT.get();
        Map<String, String> next = new LinkedHashMap<>(previous);
        if (value != null) {
            next.put(key, value.toString());
        }
        if (key2 != null && value2 != null) {
            next.put(key2, value2.toString());
        }
        CURRENT.set(Collections.unmodifiableMap(next));
        return () -> CURRENT.set(previous);
    }

    /** Replaces the context wholesale (a task or a request starts afresh; null or empty values are left out). */
    public static Scope start(Map<String, ?> entries) {
        Map<String, String> previous = CURRENT.get();
        Map<String, String> next = new LinkedHashMap<>();
        entries.forEach((key, value) -> {
            if (value != null && !value.toString().isEmpty()) {
                next.put(key, value.toString());
            }
        });
        CURRENT.set(Collections.unmodifiableMap(next));
        return () -> CURRENT.set(previous);
    }

    /** The current thread's context (empty outside a task or request). */
    public static Map<String, String> current() {
        return CURRENT.get();
    }
}
