package nl.overheid.moz.nmc.logging;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * The plain-text line for a local run: time, level, logger, message, then the {@link LogContext} as
 * {@code [key=value …]} so a notification can still be followed, and the stack trace.
 */
public final class TextLogFormatter extends Formatter {

    private static final DateTimeFormatter TIME =
            DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    @Override
    public String format(LogRecord record) {
        StringBuilder line = new StringBuilder(160)
                .append(TIME.format(record.getInstant()))
                .append(' ')
                .append(record.getLevel().getName())
                .append(' ')
                .append(record.getLoggerName())
                .append(": ")
                .append(formatMessage(record));
        if (!LogContext.current().isEmpty()) {
            line.append(" [");
            new java.util.TreeMap<>(LogContext.current())
                    .forEach((key, value) ->
                            line.append(key).append('=').append(value).append(' '));
            line.setLength(line.length() - 1);
            line.append(']');
        }
        line.append(System.lineSeparator());
        if (record.getThrown() != null) {
            java.io.StringWriter trace = new java.io.StringWriter();
            record.getThrown().printStackTrace(new java.io.PrintWriter(trace));
            line.append(trace);
        }
        return line.toString();
    }
}
