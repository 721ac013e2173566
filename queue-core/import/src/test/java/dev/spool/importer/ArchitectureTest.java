package dev.spool.importer;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import dev.spool.queue.ArchitectureRules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** queue-import's dependency rules, as docs/architecture.md states them under "Dependencies". */
@AnalyzeClasses(packages = "dev.spool.importer", importOptions = ArchitectureRules.MainClassesOnly.class)
class ArchitectureTest {
    private static final String[] BELOW_THE_API = {"dev.spool.queue.engine", "dev.spool.queue.tools",
        "dev.spool.queue.format", "dev.spool.ringbuffer", "dev.spool.replication"};

    @ArchTest
    static final ArchRule usesOnlyTheApiAndCoreInternal = noClasses().that().resideInAPackage("dev.spool.importer..")
            .should().dependOnClassesThat().resideInAnyPackage(packages())
            .because("the import writes through queue-core's API and its internal package, like every sibling module");

    @ArchTest
    static final ArchRule sourcesImportOnlyTheApiAndCoreInternal =
            ArchitectureRules.sourcesImportNothingFrom("dev.spool.importer..", BELOW_THE_API);

    @ArchTest
    static final ArchRule noPublicSignatureExposesAnInternalType =
            ArchitectureRules.noPublicSignatureExposesAnInternalType("dev.spool.importer..");

    @ArchTest
    static final ArchRule publicTypesNeverTouchChronicleQueue = noClasses()
            .that().resideInAPackage("dev.spool.importer").and().arePublic()
            .should().dependOnClassesThat().resideInAnyPackage("net.openhft.chronicle.queue..")
            .because("the API takes directories, not Chronicle's types; an application never needs them")
            .allowEmptyShould(true);

    @ArchTest
    static final ArchTests everyModule = ArchTests.in(ArchitectureRules.EveryModule.class);

    private static String[] packages() {
        final String[] packages = new String[BELOW_THE_API.length];
        for (int i = 0; i < packages.length; i++) {
            packages[i] = BELOW_THE_API[i] + "..";
        }
        return packages;
    }
}
