package nl.overheid.moz.nmc.logging;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.Map;
import java.util.logging.Formatter;
import java.util.logging.LogRecord;

/**
 * One JSON object per line: {@code time}, {@code level}, {@code logger}, {@code message}, the {@link LogContext}
 * of the thread that logged ({@code trace_id}, {@code span_id}, {@code notificatie_id}, {@code taak_soort},
 * {@code dv_id}) and, for a record with an exception, {@code exception} (its stack trace). Written here because
 * JUL ships no JSON formatter and Helidon's {@code HelidonFormatter} formats text only; Jackson does the escaping.
 * The context is read when the record is formatted, so it must be used by a synchronous handler (as the
 * console handlers are).
 */
public final class JsonLogFormatter extends Formatter {

    private static final JsonFactory JSON = new JsonFactory();

    @Override
    public String format(LogRecord record) {
        StringWriter out = new StringWriter(256);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField(
                    "time", Instant.ofEpochMilli(record.getMillis()).toString());
            json.writeStringField("level", record.getLevel().getName());
            json.writeStringField("logger", record.getLoggerName());
            json.writeStringField("message", formatMessage(record));
            for (Map.Entry<String, String> entry : LogContext.current().entrySet()) {
                json.writeStringField(entry.getKey(), entry.getValue());
            }
            if (record.getThrown() != null) {
                StringWriter trace = new StringWriter();
                record.getThrown().printStackTrace(new PrintWriter(trace));
                json.writeStringField("exception", trace.toString());
            }
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.append(System.lineSeparator()).toString();
    }
}
