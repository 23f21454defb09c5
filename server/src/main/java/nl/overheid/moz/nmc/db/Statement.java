package nl.overheid.moz.nmc.db;

import io.helidon.dbclient.DbExecute;
import io.helidon.dbclient.DbStatementDml;
import io.helidon.dbclient.DbStatementGet;
import io.helidon.dbclient.DbStatementQuery;
import java.util.List;
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
 * <p>The {@code :name} parameters are turned into JDBC's {@code ?} once, when the constant is made
 * ({@link PositionalSql}), and the statement runs with its values in that order: DbClient would parse the SQL again
 * on every execution (about 5 % of the NMC's CPU under load). The callers still bind by name.
 *
 * <p>The parser reads {@code ::type} as a parameter named {@code type}, as DbClient's does, so casts are written
 * {@code CAST(x AS type)}; a statement with {@code ::} is refused when the class loads.
 */
public final class Statement {

    private static final Pattern NAME = Pattern.compile("^[a-z][A-Za-z0-9]*$");

    private final String name;
    private final String sql;
    private final PositionalSql positional;

    private Statement(String name, String sql) {
        Objects.requireNonNull(sql);
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("statement name must be camelCase Table+Verb: " + name);
        }
        if (sql.contains("::")) {
            throw new IllegalArgumentException("statement " + name + " uses '::'; write CAST(x AS type)");
        }
        this.name = name;
        this.sql = sql;
        this.positional = PositionalSql.of(sql);
    }

    public static Statement named(String name, String sql) {
        return new Statement(name, sql);
    }

    public String name() {
        return name;
    }

    /** The SQL as written, with {@code :name} parameters. */
    public String sql() {
        return sql;
    }

    /** The SQL as it is sent, with {@code ?} in place of each parameter. */
    public String positionalSql() {
        return positional.sql();
    }

    /** The parameters' names in the order of their {@code ?} (a name used twice is there twice). */
    public List<String> parameterOrder() {
        return positional.names();
    }

    /** A query whose rows are streamed (close the stream, e.g. with a terminal operation). */
    public DbStatementQuery query(DbExecute execute) {
        return new NamedParameters.Query(execute.createNamedQuery(name, positional.sql()), name, positional.names());
    }

    /** A query of at most one row. */
    public DbStatementGet get(DbExecute execute) {
        return new NamedParameters.Get(execute.createNamedGet(name, positional.sql()), name, positional.names());
    }

    /** An INSERT, UPDATE or DELETE without result rows; {@code execute()} returns the row count. */
    public DbStatementDml dml(DbExecute execute) {
        return new NamedParameters.Dml(
                execute.createNamedDmlStatement(name, positional.sql()), name, positional.names());
    }

    @Override
    public String toString() {
        return name;
    }
}
