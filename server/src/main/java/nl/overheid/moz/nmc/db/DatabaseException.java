package nl.overheid.moz.nmc.db;

import java.sql.SQLException;

/** An unchecked wrapper of {@link SQLException} that keeps the SQLSTATE at hand. */
public final class DatabaseException extends RuntimeException {

    public DatabaseException(SQLException cause) {
        super(cause.getMessage(), cause);
    }

    /** The SQLSTATE of the underlying error, or {@code null}. */
    public String sqlState() {
        return getCause() instanceof SQLException sql ? sql.getSQLState() : null;
    }

    /** Whether retrying the whole transaction may succeed (serialization failure or deadlock). */
    public boolean retryable() {
        String state = sqlState();
        return "40001".equals(state) || "40P01".equals(state);
    }
}
