package nl.overheid.moz.nmc.db;

import io.helidon.dbclient.DbResultDml;
import io.helidon.dbclient.DbRow;
import io.helidon.dbclient.DbStatement;
import io.helidon.dbclient.DbStatementDml;
import io.helidon.dbclient.DbStatementGet;
import io.helidon.dbclient.DbStatementQuery;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * A {@link Statement} about to run: the caller binds by name, and at execution the values go to DbClient's
 * statement in the order of the SQL's {@code ?} ({@link PositionalSql}), so DbClient does not parse the SQL again.
 * Binding by position is refused: every statement of the NMC names its parameters.
 */
abstract sealed class NamedParameters<D extends DbStatement<D>> implements DbStatement<D> {

    private final D delegate;
    private final String name;
    private final List<String> order;
    private final Map<String, Object> values = new HashMap<>();

    NamedParameters(D delegate, String name, List<String> order) {
        this.delegate = delegate;
        this.name = name;
        this.order = order;
    }

    abstract D self();

    /** DbClient's statement with every parameter bound in order. */
    final D bound() {
        for (String parameter : order) {
            if (!values.containsKey(parameter)) {
                throw new IllegalStateException("statement " + name + " has no value for :" + parameter);
            }
            delegate.addParam(values.get(parameter));
        }
        return delegate;
    }

    final D delegate() {
        return delegate;
    }

    @Override
    public D params(Map<String, ?> parameters) {
        values.putAll(parameters);
        return self();
    }

    @Override
    public D addParam(String parameter, Object value) {
        values.put(parameter, value);
        return self();
    }

    @Override
    public D addParam(String parameter, boolean value) {
        return addParam(parameter, (Object) value);
    }

    @Override
    public D addParam(String parameter, String value) {
        return addParam(parameter, (Object) value);
    }

    @Override
    public D addParam(String parameter, byte value) {
        return addParam(parameter, (Object) value);
    }

    @Override
    public D addParam(String parameter, short value) {
        return addParam(parameter, (Object) value);
    }

    @Override
    public D addParam(String parameter, int value) {
        return addParam(parameter, (Object) value);
    }

    @Override
    public D addParam(String parameter, long value) {
        return addParam(parameter, (Object) value);
    }

    @Override
    public D addParam(String parameter, float value) {
        return addParam(parameter, (Object) value);
    }

    @Override
    public D addParam(String parameter, double value) {
        return addParam(parameter, (Object) value);
    }

    @Override
    public D addParam(String parameter, BigInteger value) {
        return addParam(parameter, (Object) value);
    }

    @Override
    public D addParam(String parameter, BigDecimal value) {
        return addParam(parameter, (Object) value);
    }

    @Override
    public D addParam(String parameter, byte[] value) {
        return addParam(parameter, (Object) value);
    }

    @Override
    public D params(List<?> parameters) {
        throw positional();
    }

    @Override
    public D namedParam(Object parameters) {
        throw positional();
    }

    @Override
    public D indexedParam(Object parameters) {
        throw positional();
    }

    @Override
    public D addParam(Object value) {
        throw positional();
    }

    @Override
    public D addParam(boolean value) {
        throw positional();
    }

    @Override
    public D addParam(String value) {
        throw positional();
    }

    @Override
    public D addParam(byte value) {
        throw positional();
    }

    @Override
    public D addParam(short value) {
        throw positional();
    }

    @Override
    public D addParam(int value) {
        throw positional();
    }

    @Override
    public D addParam(long value) {
        throw positional();
    }

    @Override
    public D addParam(float value) {
        throw positional();
    }

    @Override
    public D addParam(double value) {
        throw positional();
    }

    @Override
    public D addParam(BigInteger value) {
        throw positional();
    }

    @Override
    public D addParam(BigDecimal value) {
        throw positional();
    }

    @Override
    public D addParam(byte[] value) {
        throw positional();
    }

    private UnsupportedOperationException positional() {
        return new UnsupportedOperationException("statement " + name + " binds its parameters by name");
    }

    static final class Dml extends NamedParameters<DbStatementDml> implements DbStatementDml {

        Dml(DbStatementDml delegate, String name, List<String> order) {
            super(delegate, name, order);
        }

        @Override
        DbStatementDml self() {
            return this;
        }

        @Override
        public long execute() {
            return bound().execute();
        }

        @Override
        public DbResultDml insert() {
            return bound().insert();
        }

        @Override
        public DbStatementDml returnGeneratedKeys() {
            delegate().returnGeneratedKeys();
            return this;
        }

        @Override
        public DbStatementDml returnColumns(List<String> columns) {
            delegate().returnColumns(columns);
            return this;
        }
    }

    static final class Get extends NamedParameters<DbStatementGet> implements DbStatementGet {

        Get(DbStatementGet delegate, String name, List<String> order) {
            super(delegate, name, order);
        }

        @Override
        DbStatementGet self() {
            return this;
        }

        @Override
        public Optional<DbRow> execute() {
            return bound().execute();
        }
    }

    static final class Query extends NamedParameters<DbStatementQuery> implements DbStatementQuery {

        Query(DbStatementQuery delegate, String name, List<String> order) {
            super(delegate, name, order);
        }

        @Override
        DbStatementQuery self() {
            return this;
        }

        @Override
        public Stream<DbRow> execute() {
            return bound().execute();
        }
    }
}
