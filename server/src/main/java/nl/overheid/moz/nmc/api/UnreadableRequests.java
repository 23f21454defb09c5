package nl.overheid.moz.nmc.api;

import java.util.logging.Filter;
import java.util.logging.Logger;

/**
 * Keeps one client-made record out of the log: Helidon 4.5 logs a request line whose method is no HTTP token as an
 * "Internal server error" at WARNING with its stack trace, one per request, so any client could fill the log at
 * will. The NMC answers such a request with a 400 problem ({@link ProblemResponses}) and counts it with the other
 * problems; every other record of that logger passes unchanged.
 */
public final class UnreadableRequests implements Filter {

    /** Held here: a logger is only weakly referenced, and a collected one would lose its filter. */
    private static final Logger HTTP1 = Logger.getLogger("io.helidon.webserver.http1.Http1Connection");

    private UnreadableRequests() {}

    public static void install() {
        if (!(HTTP1.getFilter() instanceof UnreadableRequests)) {
            HTTP1.setFilter(new UnreadableRequests());
        }
    }

    @Override
    public boolean isLoggable(java.util.logging.LogRecord record) {
        return !madeByAClient(record.getThrown());
    }

    /** An IllegalArgumentException of Helidon's HTTP token check (the method of a request line), however wrapped. */
    static boolean madeByAClient(Throwable thrown) {
        for (Throwable cause = thrown; cause != null; cause = cause.getCause()) {
            if (cause instanceof IllegalArgumentException
                    && cause.getStackTrace().length > 0
                    && cause.getStackTrace()[0].getClassName().equals("io.helidon.http.HttpToken")) {
                return true;
            }
        }
        return false;
    }
}
