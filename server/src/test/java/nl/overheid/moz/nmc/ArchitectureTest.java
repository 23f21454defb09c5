package nl.overheid.moz.nmc;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layers point one way: api → step packages → engine and lifecycle → db, with the composition root
 *  ({@code Nmc}, {@code Main}) above everything. The engine has no notification logic and the lifecycle no
 * task; nothing below the API speaks HTTP; no two packages depend on each other.
 */
class ArchitectureTest {

    private static final String ROOT = "nl.overheid.moz.nmc";
    private static final String[] STEPS = {ROOT + ".acceptance..", ROOT + ".sending..", ROOT + ".receipts..",
        ROOT + ".feed..", ROOT + ".status..", ROOT + ".control..", ROOT + ".maintenance..", ROOT + ".planning..",
        ROOT + ".webhook..", ROOT + ".retention..", ROOT + ".operator.."};
    private static final String[] SUPPORT = {ROOT + ".register..", ROOT + ".privacy..", ROOT + ".observe..",
        ROOT + ".trace..", ROOT + ".ldv..", ROOT + ".profiel.."};

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ROOT);
    }

    @Test
    void theLayersPointOneWay() {
        layeredArchitecture().consideringOnlyDependenciesInAnyPackage(ROOT + "..")
                .layer("Composition root").definedBy(ROOT)
                .layer("Api").definedBy(ROOT + ".api..")
                .layer("Steps").definedBy(STEPS)
                .layer("Support").definedBy(SUPPORT)
                .layer("Engine").definedBy(ROOT + ".engine..")
                .layer("Lifecycle").definedBy(ROOT + ".lifecycle..")
                .layer("Db").definedBy(ROOT + ".db..")
                .layer("Logging").definedBy(ROOT + ".logging..")
                .layer("Refusal").definedBy(ROOT + ".refusal..")
                .whereLayer("Composition root").mayNotBeAccessedByAnyLayer()
                .whereLayer("Api").mayOnlyBeAccessedByLayers("Composition root")
                .whereLayer("Steps").mayOnlyBeAccessedByLayers("Composition root", "Api")
                .whereLayer("Support").mayOnlyBeAccessedByLayers("Composition root", "Api", "Steps")
                .whereLayer("Engine").mayOnlyBeAccessedByLayers("Composition root", "Api", "Steps")
                .whereLayer("Lifecycle").mayOnlyBeAccessedByLayers("Composition root", "Api", "Steps")
                .whereLayer("Db").mayOnlyBeAccessedByLayers("Composition root", "Steps", "Support", "Engine",
                        "Lifecycle")
                .whereLayer("Logging").mayNotAccessAnyLayer()
                .whereLayer("Refusal").mayNotAccessAnyLayer()
                .check(classes);
    }

    /** The log context is set by the engine, the steps and the API alike, so it may know none of them. */
    @Test
    void loggingDependsOnNoOtherPackage() {
        noClasses().that().resideInAPackage(ROOT + ".logging..")
                .should().dependOnClassesThat().resideInAnyPackage(ROOT)
                .orShould().dependOnClassesThat().resideOutsideOfPackages(ROOT + ".logging..", "java..",
                        "com.fasterxml.jackson.core..")
                .check(classes);
    }

    @Test
    void theEngineKnowsNoNotificationAndTheLifecycleNoTask() {
        noClasses().that().resideInAPackage(ROOT + ".engine..")
                .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".lifecycle..", ROOT + ".api..")
                .check(classes);
        noClasses().that().resideInAPackage(ROOT + ".lifecycle..")
                .should().dependOnClassesThat().resideInAnyPackage(ROOT + ".engine..", ROOT + ".api..")
                .check(classes);
    }

    @Test
    void personalDataIsDecryptedOnlyBySendingAndTheInvalidAddressReport() {
        noClasses().that().doNotHaveFullyQualifiedName(ROOT + ".sending.SendPipeline")
                .and().doNotHaveFullyQualifiedName(ROOT + ".sending.InvalidAddressReporter")
                .should().callMethod(nl.overheid.moz.nmc.privacy.Envelope.class, "open", java.util.UUID.class,
                        byte[].class, int.class, java.util.Map.class)
                .check(classes);
    }

    @Test
    void onlyTheApiSpeaksHttp() {
        noClasses().that().resideOutsideOfPackages(ROOT + ".api..").and().doNotHaveFullyQualifiedName(ROOT + ".HttpEdge")
                .should().dependOnClassesThat().resideInAnyPackage("io.helidon.http..", "io.helidon.webserver..")
                .check(classes);
    }

    @Test
    void noPackagesDependOnEachOtherInACycle() {
        slices().matching(ROOT + ".(*)..").should().beFreeOfCycles().check(classes);
    }
}
