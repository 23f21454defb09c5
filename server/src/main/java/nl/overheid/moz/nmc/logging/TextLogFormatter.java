package nl.overheid.moz.nmc.logging;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * The plain-text line for a local run: time, level, logger, message, then the {@link LogContext} as
 * {@code [key=value …]} so a notification can still be followed, and the stack trace. A control character in
 * the message or the context is written as {@code \\uXXXX}, so no text can break or forge a line (the JSON
 * lines escape it as JSON does).
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
                .append(oneLine(formatMessage(record)));
        if (!LogContext.current().isEmpty()) {
            line.append(" [");
            new java.util.TreeMap<>(LogContext.current())
                    .forEach((key, value) ->
                            line.append(key).append('=').append(oneLine(value)).append(' '));
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

    /** {@code text} with every control character (C0, DEL, C1) as {@code \\uXXXX}. */
    static String oneLine(String text) {
        if (text == null) {
            return null;
        }
        StringBuilder out = null;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            boolean control = c < 0x20 || (c >= 0x7F && c <= 0x9F);
            if (control && out == null) {
                out = new StringBuilder(text.length() + 16).append(text, 0, i);
            }
            if (out != null) {
                if (control) {
                    out.append(String.format("\\u%04x", (int) c));
                } else {
                    out.append(c);
                }
            }
        }
        return out == null ? text : out.toString();
    }
}
