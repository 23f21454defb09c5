package nl.overheid.moz.nmc.db;

import io.helidon.dbclient.DbExecute;
import io.helidon.dbclient.DbStatementDml;
import io.helidon.dbclient.DbStatementGet;
import io.helidon.dbclient.DbStatementQuery;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One named SQL statement with {@code :name} parameters. The name shows in DbClient's errors and lets a
 * {@code DbClientService} (metrics, tracing) tell statements apart.
 *
 * <p>Where SQL lives: only in data-access classes, named {@code *Repository}, one per table or aggregate (tables
 * written together) in the package of the step that owns it, plus this package and the Flyway migrations. A
 * repository declares its statements as constants (name Table+Verb) and offers domain verbs without the table
 * prefix ({@code claimDue}, {@code markSent}); every other class calls those and holds no SQL. The transaction
 * stays the caller's. {@code ArchitectureTest.sqlLivesOnlyInDataAccessClasses} keeps it so.
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
