package nl.overheid.moz.nmc.db;

import io.helidon.dbclient.DbExecute;
import io.helidon.dbclient.DbStatementDml;
import io.helidon.dbclient.DbStatementGet;
import io.helidon.dbclient.DbStatementQuery;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One named SQL statement with {@code :name} parameters, kept as a constant next to the code that owns the
 * table (name: Table+Verb, e.g. {@code claimDue}). The name shows in DbClient's errors and lets a
 * {@code DbClientService} (metrics, tracing) tell statements apart.
 *
 * <p>DbClient's parameter parser reads {@code ::type} as a parameter named {@code type}, so casts are
 * written {@code CAST(x AS type)}; a statement with {@code ::} is refused when the class loads.
 */
public record Statement(String name, String sql) {

    private static final Pattern NAME = Pattern.compile("^[a-z][A-Za-z0-9]*$");

    public Statement {
        Objects.requireNonNull(sql);
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("statement name must be camelCase Table+Verb: " + name);
        }
        if (sql.contains("::")) {
            throw new IllegalArgumentException("statement " + name + " uses '::'; write CAST(x AS type)");
        }
    }

    public static Statement named(String name, String sql) {
        return new Statement(name, sql);
    }

    /** A query whose rows are streamed (close the stream, e.g. with a terminal operation). */
    public DbStatementQuery query(DbExecute execute) {
        return execute.createNamedQuery(name, sql);
    }

    /** A query of at most one row. */
    public DbStatementGet get(DbExecute execute) {
        return execute.createNamedGet(name, sql);
    }

    /** An INSERT, UPDATE or DELETE without result rows; {@code execute()} returns the row count. */
    public DbStatementDml dml(DbExecute execute) {
        return execute.createNamedDmlStatement(name, sql);
    }
}
