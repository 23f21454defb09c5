package nl.overheid.moz.nmc.db;

import java.sql.SQLException;
import java.util.Optional;

/** The SQLSTATE behind an exception from the database, wherever in the cause chain DbClient put it. */
public final class SqlStates {

    public static final String SERIALIZATION_FAILURE = "40001";
    public static final String DEADLOCK = "40P01";
    /** A lock not granted within {@code lock_timeout} (or {@code NOWAIT}). */
    public static final String LOCK_NOT_AVAILABLE = "55P03";

    private SqlStates() {}

    public static Optional<String> of(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                return Optional.of(sql.getSQLState());
            }
        }
        return Optional.empty();
    }

    /**
     * Whether the database itself could not be reached or went away (connection errors, an administrator or
     * crash shutdown, a pool with no free connection in time): the work did not fail, it could not run.
     */
    public static boolean unavailable(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof java.sql.SQLTransientConnectionException) {
                return true;
            }
        }
        return of(error)
                .filter(state -> state.startsWith("08")
                        || state.equals("57P01")
                        || state.equals("57P02")
                        || state.equals("57P03"))
                .isPresent();
    }

    /** Whether rerunning the whole transaction may succeed (serialization failure or deadlock). */
    public static boolean retryable(Throwable error) {
        return of(error)
                .filter(state -> state.equals(SERIALIZATION_FAILURE) || state.equals(DEADLOCK))
                .isPresent();
    }
}
