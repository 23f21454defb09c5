package nl.overheid.moz.nmc.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import nl.overheid.moz.nmc.testing.TestDatabase;
import org.junit.jupiter.api.Test;

/**
 * The statements run with {@code ?} parameters converted once ({@link PositionalSql}) instead of DbClient parsing
 * {@code :name} on every execution: the conversion must be exactly DbClient's own, for every statement the NMC has.
 */
class StatementTest {

    @Test
    void everyStatementOfTheNmcConvertsExactlyAsDbClientsOwnParserDoes() throws Exception {
        List<Statement> statements = allStatements();
        assertThat(statements)
                .as("the NMC's statements, found by scanning its classes")
                .hasSizeGreaterThan(100);
        Class<?> parserClass = Class.forName("io.helidon.dbclient.jdbc.NamedStatementParser");
        Constructor<?> parser = parserClass.getDeclaredConstructor(String.class);
        parser.setAccessible(true);
        Method convert = parserClass.getDeclaredMethod("convert");
        convert.setAccessible(true);
        Method namesOrder = parserClass.getDeclaredMethod("namesOrder");
        namesOrder.setAccessible(true);
        for (Statement statement : statements) {
            Object helidon = parser.newInstance(statement.sql());
            String converted = (String) convert.invoke(helidon);
            assertThat(statement.positionalSql()).as(statement.name()).isEqualTo(converted);
            assertThat(statement.parameterOrder()).as(statement.name()).isEqualTo(namesOrder.invoke(helidon));
        }
    }

    @Test
    void stringsAndCommentsHoldNoParametersAndARepeatedNameIsBoundAtEachPlace() {
        Statement statement = Statement.named("testSelect", """
                SELECT ':not' AS a, -- :neither
                       /* :nor */ :first AS b, CAST(:second AS text) AS c, 'it''s :no' AS d, :first AS e
                """);
        assertThat(statement.parameterOrder()).containsExactly("first", "second", "first");
        assertThat(statement.positionalSql())
                .contains("':not'", "-- :neither", "/* :nor */", "'it''s :no'")
                .doesNotContain(":first", ":second");

        var row = TestDatabase.get()
                .shared()
                .inTransaction(tx -> statement
                        .get(tx)
                        .addParam("first", 7)
                        .addParam("second", (Object) null)
                        .execute()
                        .orElseThrow());
        assertThat(row.column("b").get(Integer.class)).isEqualTo(7);
        assertThat(row.column("c").get(String.class)).isNull();
        assertThat(row.column("e").get(Integer.class)).isEqualTo(7);
    }

    @Test
    void aMissingValueOrAPositionalValueIsRefusedBeforeTheDatabaseSeesIt() {
        Statement statement = Statement.named("testSelect", "SELECT :id AS id, :dv AS dv");
        var database = TestDatabase.get().shared();
        assertThatThrownBy(() -> database.inTransaction(tx ->
                        statement.get(tx).addParam("id", UUID.randomUUID()).execute()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("testSelect")
                .hasMessageContaining(":dv");
        assertThatThrownBy(() -> database.inTransaction(
                        tx -> statement.get(tx).addParam(1).execute()))
                .isInstanceOf(UnsupportedOperationException.class);
        String dv = database.inTransaction(tx -> statement
                .get(tx)
                .params(Map.of("id", "a", "dv", "b"))
                .execute()
                .orElseThrow()
                .column("dv")
                .get(String.class));
        assertThat(dv).isEqualTo("b");
    }

    /** Every static {@link Statement} field of the NMC's classes. */
    private static List<Statement> allStatements() throws Exception {
        List<Statement> statements = new ArrayList<>();
        for (JavaClass type : new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("nl.overheid.moz.nmc")) {
            for (JavaField field : type.getFields()) {
                if (field.getModifiers().contains(JavaModifier.STATIC)
                        && field.getRawType().isEquivalentTo(Statement.class)) {
                    Field reflected = field.reflect();
                    reflected.setAccessible(true);
                    statements.add((Statement) reflected.get(null));
                }
            }
        }
        return statements;
    }
}
