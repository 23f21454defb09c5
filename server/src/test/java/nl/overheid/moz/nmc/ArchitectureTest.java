package nl.overheid.moz.nmc;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaCall;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.helidon.dbclient.DbExecute;
import java.util.Set;
import nl.overheid.moz.nmc.db.Statement;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layers point one way: api → step packages → engine and lifecycle → db, with the composition root
 *  ({@code Nmc}, {@code Main}) above everything. The engine has no notification logic and the lifecycle no
 * task; nothing below the API speaks HTTP; no two packages depend on each other. SQL sits only in data-access
 * classes (see {@link Statement}).
 */
class ArchitectureTest {

    private static final String ROOT = "nl.overheid.moz.nmc";
    private static final String[] STEPS = {
        ROOT + ".acceptance..",
        ROOT + ".sending..",
        ROOT + ".receipts..",
        ROOT + ".feed..",
        ROOT + ".ratelimit..",
        ROOT + ".status..",
        ROOT + ".control..",
        ROOT + ".maintenance..",
        ROOT + ".planning..",
        ROOT + ".webhook..",
        ROOT + ".retention..",
        ROOT + ".operator.."
    };
    private static final String[] SUPPORT = {
        ROOT + ".register..", ROOT + ".privacy..", ROOT + ".observe..", ROOT + ".ldv..", ROOT + ".profiel.."
    };

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ROOT);
    }

    @Test
    void theLayersPointOneWay() {
        layeredArchitecture()
                .consideringOnlyDependenciesInAnyPackage(ROOT + "..")
                .layer("Composition root")
                .definedBy(ROOT)
                .layer("Api")
                .definedBy(ROOT + ".api..")
                .layer("Steps")
                .definedBy(STEPS)
                .layer("Support")
                .definedBy(SUPPORT)
                .layer("Engine")
                .definedBy(ROOT + ".engine..")
                .layer("Lifecycle")
                .definedBy(ROOT + ".lifecycle..")
                .layer("Db")
                .definedBy(ROOT + ".db..")
                .layer("Logging")
                .definedBy(ROOT + ".logging..")
                .layer("Refusal")
                .definedBy(ROOT + ".refusal..")
                .layer("Trace")
                .definedBy(ROOT + ".trace..")
                .whereLayer("Composition root")
                .mayNotBeAccessedByAnyLayer()
                .whereLayer("Api")
                .mayOnlyBeAccessedByLayers("Composition root")
                .whereLayer("Steps")
                .mayOnlyBeAccessedByLayers("Composition root", "Api")
                .whereLayer("Support")
                .mayOnlyBeAccessedByLayers("Composition root", "Api", "Steps")
                .whereLayer("Engine")
                .mayOnlyBeAccessedByLayers("Composition root", "Api", "Steps")
                .whereLayer("Lifecycle")
                .mayOnlyBeAccessedByLayers("Composition root", "Api", "Steps")
                .whereLayer("Db")
                .mayOnlyBeAccessedByLayers("Composition root", "Steps", "Support", "Engine", "Lifecycle")
                .whereLayer("Logging")
                .mayNotAccessAnyLayer()
                .whereLayer("Refusal")
                .mayNotAccessAnyLayer()
                // a leaf like the log context: the engine's task runs and every layer's calls are spans of it
                .whereLayer("Trace")
                .mayOnlyAccessLayers("Logging")
                .check(classes);
    }

    /** The log context is set by the engine, the steps and the API alike, so it may know none of them. */
    @Test
    void loggingDependsOnNoOtherPackage() {
        noClasses()
                .that()
                .resideInAPackage(ROOT + ".logging..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ROOT)
                .orShould()
                .dependOnClassesThat()
                .resideOutsideOfPackages(ROOT + ".logging..", "java..", "com.fasterxml.jackson.core..")
                .check(classes);
    }

    @Test
    void theEngineKnowsNoNotificationAndTheLifecycleNoTask() {
        noClasses()
                .that()
                .resideInAPackage(ROOT + ".engine..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ROOT + ".lifecycle..", ROOT + ".api..")
                .check(classes);
        noClasses()
                .that()
                .resideInAPackage(ROOT + ".lifecycle..")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage(ROOT + ".engine..", ROOT + ".api..")
                .check(classes);
    }

    @Test
    void personalDataIsDecryptedOnlyBySendingAndTheInvalidAddressReport() {
        noClasses()
                .that()
                .doNotHaveFullyQualifiedName(ROOT + ".sending.SendPipeline")
                .and()
                .doNotHaveFullyQualifiedName(ROOT + ".sending.InvalidAddressReporter")
                .should()
                .callMethod(
                        nl.overheid.moz.nmc.privacy.Envelope.class,
                        "open",
                        java.util.UUID.class,
                        byte[].class,
                        int.class,
                        java.util.Map.class)
                .check(classes);
    }

    @Test
    void onlyTheApiSpeaksHttp() {
        noClasses()
                .that()
                .resideOutsideOfPackages(ROOT + ".api..")
                .and()
                .doNotHaveFullyQualifiedName(ROOT + ".HttpEdge")
                .should()
                .dependOnClassesThat()
                .resideInAnyPackage("io.helidon.http..", "io.helidon.webserver..")
                .check(classes);
    }

    /** The {@code DbExecute} methods that do not take SQL text (or a configured statement's name). */
    private static final Set<String> DB_EXECUTE_WITHOUT_SQL = Set.of("unwrap");

    private static final Set<String> STATEMENT_SQL_METHODS = Set.of("<init>", "named", "query", "get", "dml");
    private static final Set<String> CONNECTION_SQL_METHODS =
            Set.of("prepareStatement", "prepareCall", "createStatement", "nativeSQL");

    /** Outside the {@code db} package and the classes named {@code *Repository} (with their nested classes). */
    private static final DescribedPredicate<JavaClass> OUTSIDE_DATA_ACCESS =
            DescribedPredicate.describe("are neither in ..db.. nor named *Repository", javaClass -> {
                JavaClass top = javaClass;
                while (top.getEnclosingClass().isPresent()) {
                    top = top.getEnclosingClass().get();
                }
                String packageName = top.getPackageName();
                return !(packageName.equals(ROOT + ".db")
                        || packageName.startsWith(ROOT + ".db.")
                        || top.getSimpleName().endsWith("Repository"));
            });

    /** A call that declares, prepares or runs SQL text. */
    private static final DescribedPredicate<JavaCall<?>> CARRIES_SQL = DescribedPredicate.describe(
            "declares, prepares or runs SQL (Statement, DbExecute, java.sql.Connection)", call -> {
                JavaClass owner = call.getTarget().getOwner();
                String name = call.getTarget().getName();
                if (owner.isEquivalentTo(Statement.class)) {
                    return STATEMENT_SQL_METHODS.contains(name);
                }
                if (owner.isAssignableTo(DbExecute.class)) {
                    return !DB_EXECUTE_WITHOUT_SQL.contains(name);
                }
                return owner.isAssignableTo(java.sql.Connection.class) && CONNECTION_SQL_METHODS.contains(name);
            });

    /**
     * SQL lives in data-access classes only: the {@code db} package and a {@code *Repository} per table or aggregate.
     * Every other class calls repository methods.
     */
    @Test
    void sqlLivesOnlyInDataAccessClasses() {
        noClasses()
                .that(OUTSIDE_DATA_ACCESS)
                .should()
                .callCodeUnitWhere(CARRIES_SQL)
                .check(classes);
    }

    @Test
    void noPackagesDependOnEachOtherInACycle() {
        slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(classes);
    }
}
