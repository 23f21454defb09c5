package nl.overheid.moz.nmc.db;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.SQLException;
import java.sql.Statement;
import org.flywaydb.core.api.callback.Callback;
import org.flywaydb.core.api.callback.Context;
import org.flywaydb.core.api.callback.Event;

/**
 * Restates the runtime role's privileges after every migration (ARCHITECTURE §5, "Database roles"): the script
 * {@code db/runtime_privileges.sql} of the {@code nmc-sql} jar, so a table a later migration adds has them without a
 * line of its own. A Flyway callback in Java rather than an {@code afterMigrate.sql} beside the migrations: Flyway
 * refuses two SQL callbacks of one name, and a class path may hold the migrations' jar twice (the conformance suite
 * has it from the server's libraries and from the module itself); here the first copy is run.
 */
final class RuntimePrivileges implements Callback {

    static final String SCRIPT = "db/runtime_privileges.sql";

    @Override
    public boolean supports(Event event, Context context) {
        return event == Event.AFTER_MIGRATE;
    }

    @Override
    public boolean canHandleInTransaction(Event event, Context context) {
        return true;
    }

    @Override
    public void handle(Event event, Context context) {
        try (Statement statement = context.getConnection().createStatement()) {
            statement.execute(script());
        } catch (SQLException e) {
            throw new IllegalStateException("restating the runtime role's privileges failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String getCallbackName() {
        return "runtime privileges";
    }

    private static String script() {
        try (InputStream in = RuntimePrivileges.class.getClassLoader().getResourceAsStream(SCRIPT)) {
            if (in == null) {
                throw new IllegalStateException(SCRIPT + " is not on the class path (the nmc-sql jar)");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + SCRIPT, e);
        }
    }
}
