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
     * the driver's, which may quote the row. {@code oneRow}: the store refused a row's content (a value it cannot
     * take, a key it already holds), so the others of a group may still go in alone; any other failure is the store's
     * own, and writing the group again row by row would only multiply the writes (and, where an insert may have been
     * committed before its answer was lost, as in ClickHouse, the rows).
     */
    final class Failure extends RuntimeException {

        private final String reason;
        private final boolean oneRow;

        public Failure(String reason, String what, Throwable cause) {
            this(reason, what, cause, false);
        }

        public Failure(String reason, String what, Throwable cause, boolean oneRow) {
            super(what + " (" + reason + ")", cause);
            this.reason = reason;
            this.oneRow = oneRow;
        }

        public String reason() {
            return reason;
        }

        /** Whether the failure may be one row's (its content), not the store's. */
        public boolean oneRow() {
            return oneRow;
        }
    }
}
