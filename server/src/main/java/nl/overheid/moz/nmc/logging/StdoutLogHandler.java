package nl.overheid.moz.nmc.logging;

import java.util.Locale;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;
import java.util.logging.StreamHandler;

/**
 * The NMC's one log handler: every record as one line on standard output (where a container platform collects
 * it), flushed per record. JSON by default; plain text when {@code NMC_LOG_FORMAT} (or the system property
 * {@code nmc.log.format}) is {@code text}, as {@code scripts/run} sets it. Any other value refuses to start.
 */
public final class StdoutLogHandler extends StreamHandler {

    public StdoutLogHandler() {
        super(System.out, formatter(format()));
    }

    /** The format named by the environment: {@code json} (default) or {@code text}. */
    public static String format() {
        String value = System.getProperty("nmc.log.format", System.getenv().getOrDefault("NMC_LOG_FORMAT", "json"));
        return value.trim().toLowerCase(Locale.ROOT);
    }

    /** The formatter for {@code json} or {@code text}. */
    public static Formatter formatter(String format) {
        return switch (format) {
            case "json" -> new JsonLogFormatter();
            case "text" -> new TextLogFormatter();
            default -> throw new IllegalArgumentException("NMC_LOG_FORMAT: " + format + " is neither json nor text");
        };
    }

    @Override
    public synchronized void publish(LogRecord record) {
        super.publish(record);
        flush();
    }
}
