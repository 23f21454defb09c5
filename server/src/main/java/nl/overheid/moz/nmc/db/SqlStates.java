package nl.overheid.moz.nmc.db;

import java.sql.SQLException;
import java.util.Optional;

/** The SQLSTATE behind an exception from the database, wherever in the cause chain DbClient put it. */
public final class SqlStates {

    public static final String SERIALIZATION_FAILURE = "40001";
    public static final String DEADLOCK = "40P01";

    private SqlStates() {
    }

    public static Optional<String> of(Throwable error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && sql.getSQLState() != null) {
                return Optional.of(sql.getSQLState());
            }
        }
        return Optional.empty();
    }

    /** Whether rerunning the whole transaction may succeed (serialization failure or deadlock). */
    public static boolean retryable(Throwable error) {
        return of(error).filter(state -> state.equals(SERIALIZATION_FAILURE) || state.equals(DEADLOCK)).isPresent();
    }
}
