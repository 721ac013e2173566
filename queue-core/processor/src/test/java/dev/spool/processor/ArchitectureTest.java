package dev.spool.processor;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * spool-processor's rules, as docs/architecture.md states them under "Packages" and "Typed messages". It is built
 * before queue-core, so it cannot share queue-core's ArchitectureRules; Checkstyle checks its package-info.
 */
@AnalyzeClasses(packages = "dev.spool.processor", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule processorNeverUsesQueueCore = noClasses()
            .should().dependOnClassesThat().resideInAPackage("dev.spool.queue..")
            .because("the processor does not depend on queue-core: it names the typed runtime by canonical names, so"
                    + " queue-core's own tests run it");

    @ArchTest
    static final ArchRule noImplPackage = noClasses().should().resideInAPackage("..impl..")
            .because("implementation classes are package-private; there is no public impl package");
}
