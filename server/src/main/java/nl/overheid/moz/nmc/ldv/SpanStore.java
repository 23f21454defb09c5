package nl.overheid.moz.nmc.ldv;

import java.util.List;

/**
 * Where the rows of the processing log go: MOZa's ClickHouse or a PostgreSQL database of the log's own, in the LDV
 * wrapper's layout. A write returns only when the store has committed it; anything else throws {@link Failure}.
 */
public interface SpanStore extends AutoCloseable {

    /** Creates the table when it is missing (as the wrapper does at start); never alters an existing one. */
    void ensureSchema();

    /** Stores the rows in one transaction (all or none), committed when this returns. */
    void insert(List<SpanRow> rows);

    @Override
    void close();

    /**
     * The store did not take a write. {@code reason} is a short class for metrics and logs ({@code connection},
     * {@code timeout}, {@code refused}, {@code no-table}, {@code disk-full}, {@code error}); the message never holds
     * the driver's, which may quote the row.
     */
    final class Failure extends RuntimeException {

        private final String reason;

        public Failure(String reason, String what, Throwable cause) {
            super(what + " (" + reason + ")", cause);
            this.reason = reason;
        }

        public String reason() {
            return reason;
        }
    }
}
