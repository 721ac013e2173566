package dev.spool.ringbuffer;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.spool.queue.ArchitectureRules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** queue-ringbuffer's package rules, as docs/architecture.md states them under "Packages" and "Dependencies". */
@AnalyzeClasses(packages = "dev.spool.ringbuffer", importOptions = ArchitectureRules.MainClassesOnly.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule ringNeverUsesTheEngineOrTheTools = noClasses()
            .that().resideInAPackage("dev.spool.ringbuffer..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.spool.queue.engine..", "dev.spool.queue.tools..")
            .because("queue-ringbuffer and queue-replication use the API and internal, and never engine or tools");

    @ArchTest
    static final ArchRule ringSourcesImportNoEngineToolsOrReplication =
            ArchitectureRules.sourcesImportNothingFrom("dev.spool.ringbuffer..",
                    "dev.spool.queue.engine", "dev.spool.queue.tools", "dev.spool.replication")
            .because("ring and replication never use engine or tools and never import each other, not even a"
                    + " constant");

    @ArchTest
    static final ArchRule ringNeverUsesReplication = noClasses()
            .that().resideInAPackage("dev.spool.ringbuffer..")
            .should().dependOnClassesThat().resideInAPackage("dev.spool.replication..")
            .because("every module has a clean downward dependency: ring and replication never import each other");

    @ArchTest
    static final ArchRule noPublicSignatureExposesAnInternalType =
            ArchitectureRules.noPublicSignatureExposesAnInternalType("dev.spool.ringbuffer..");

    @ArchTest
    static final ArchRule noImportCircleCrossesAPackage = ArchitectureRules.NO_IMPORT_CIRCLE_CROSSES_A_PACKAGE;

    @ArchTest
    static final ArchRule noImplPackage = ArchitectureRules.NO_IMPL_PACKAGE;

    @ArchTest
    static final ArchRule everyPackageHasPackageInfo = ArchitectureRules.EVERY_PACKAGE_HAS_PACKAGE_INFO;
}
