package nl.overheid.moz.nmc.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.logging.SimpleFormatter;
import nl.overheid.moz.nmc.logging.LogContext;

/**
 * Watches every log record of the process while a fuzz target runs — the NMC's at every level, the libraries' from
 * INFO — for what a request must never cause: a SEVERE line (an unexpected error), a stack trace at WARNING (one per
 * request floods the log), or a control character in a message or in the log context, which would let a client's
 * text break or forge a line.
 */
public final class LogWatch extends Handler implements AutoCloseable {

    private static final Logger ROOT = Logger.getLogger("");
    private static final Logger NMC = Logger.getLogger("nl.overheid.moz.nmc");

    private final SimpleFormatter formatter = new SimpleFormatter();
    private final List<String> violations = new ArrayList<>();
    private final Level rootLevel = ROOT.getLevel();
    private final Level nmcLevel = NMC.getLevel();
    /** The process's own handlers (the console) and their levels: they keep writing only what they wrote before. */
    private final Map<Handler, Level> handlers = new java.util.HashMap<>();

    private LogWatch() {}

    public static LogWatch start() {
        LogWatch watch = new LogWatch();
        watch.setLevel(Level.ALL);
        for (Handler handler : ROOT.getHandlers()) {
            watch.handlers.put(handler, handler.getLevel());
            handler.setLevel(Level.WARNING);
        }
        ROOT.setLevel(Level.INFO);
        NMC.setLevel(Level.ALL);
        ROOT.addHandler(watch);
        return watch;
    }

    @Override
    public synchronized void publish(LogRecord record) {
        String message = formatter.formatMessage(record);
        if (record.getLevel().intValue() >= Level.SEVERE.intValue()) {
            violations.add("SEVERE from " + record.getLoggerName() + ": " + visible(message)
                    + (record.getThrown() == null
                            ? ""
                            : " (" + record.getThrown().getClass().getName() + ")"));
        } else if (record.getLevel().intValue() >= Level.WARNING.intValue() && record.getThrown() != null) {
            violations.add("a stack trace at " + record.getLevel() + " from " + record.getLoggerName() + ": "
                    + visible(message) + " (" + record.getThrown() + ", caused by "
                    + record.getThrown().getCause()
                    + ")");
        }
        if (hasControl(message)) {
            violations.add("a control character in a line of " + record.getLoggerName() + ": " + visible(message));
        }
        for (Map.Entry<String, String> entry : LogContext.current().entrySet()) {
            if (hasControl(entry.getValue())) {
                violations.add(
                        "a control character in the log context " + entry.getKey() + ": " + visible(entry.getValue()));
            }
        }
    }

    /** What went wrong since the last call, and forgets it. */
    public synchronized List<String> drain() {
        List<String> found = List.copyOf(violations);
        violations.clear();
        return found;
    }

    static boolean hasControl(String text) {
        return text != null && text.chars().anyMatch(c -> c < 0x20 || (c >= 0x7F && c <= 0x9F));
    }

    private static String visible(String text) {
        StringBuilder out = new StringBuilder();
        text.chars().limit(300).forEach(c -> {
            if (c < 0x20 || (c >= 0x7F && c <= 0x9F)) {
                out.append(String.format("\\u%04x", c));
            } else {
                out.append((char) c);
            }
        });
        return out.toString();
    }

    @Override
    public void flush() {}

    @Override
    public void close() {
        ROOT.removeHandler(this);
        handlers.forEach(Handler::setLevel);
        ROOT.setLevel(rootLevel);
        NMC.setLevel(nmcLevel);
    }
}
