package dev.spool.benchmarks;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import dev.spool.queue.ArchitectureRules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/** The benchmarks' package rules, as docs/architecture.md states them under "Packages" and "Dependencies". */
@AnalyzeClasses(packages = "dev.spool.benchmarks", importOptions = ArchitectureRules.MainClassesOnly.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule benchmarksUseOnlyThePublicApi = noClasses()
            .that().resideInAPackage("dev.spool.benchmarks..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.spool.queue.engine..", "dev.spool.queue.internal..",
                    "dev.spool.queue.format..", "dev.spool.queue.tools..")
            .because("the benchmarks use only the public API of the three modules: they measure what a user gets");

    @ArchTest
    static final ArchRule benchmarksSourcesImportOnlyThePublicApi = ArchitectureRules.sourcesImportNothingFrom(
            "dev.spool.benchmarks..", "dev.spool.queue.engine", "dev.spool.queue.internal", "dev.spool.queue.tools")
            .because("the benchmarks use only the public API of the three modules, not even a constant of the rest");

    @ArchTest
    static final ArchRule packagesFormLayers = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("Main").definedBy("dev.spool.benchmarks")
            .layer("demo").definedBy("dev.spool.benchmarks.demo..")
            .layer("cluster").definedBy("dev.spool.benchmarks.cluster..")
            .layer("jmh").definedBy("dev.spool.benchmarks.jmh..")
            .layer("startup").definedBy("dev.spool.benchmarks.startup..")
            .layer("migration").definedBy("dev.spool.benchmarks.migration..")
            .layer("report").definedBy("dev.spool.benchmarks.report..")
            .layer("latency").definedBy("dev.spool.benchmarks.latency")
            .layer("latency.variants").definedBy("dev.spool.benchmarks.latency.variants..")
            .layer("support").definedBy("dev.spool.benchmarks.support..")
            .whereLayer("Main").mayNotBeAccessedByAnyLayer()
            .whereLayer("demo").mayOnlyBeAccessedByLayers("Main")
            .whereLayer("cluster").mayOnlyBeAccessedByLayers("Main")
            .whereLayer("jmh").mayOnlyBeAccessedByLayers("Main", "report")
            .whereLayer("startup").mayOnlyBeAccessedByLayers("Main")
            .whereLayer("migration").mayOnlyBeAccessedByLayers("Main")
            .whereLayer("report").mayOnlyBeAccessedByLayers("Main")
            .whereLayer("latency").mayOnlyBeAccessedByLayers("Main")
            .whereLayer("latency.variants").mayOnlyBeAccessedByLayers("latency", "demo")
            .whereLayer("support").mayNotAccessAnyLayer()
            .because("Main depends on demo, cluster, jmh, latency, startup, migration, report and support; latency depends on"
                    + " latency.variants and support; the demo on latency.variants (its floor) and support; report on"
                    + " jmh (its operation names) and support; cluster, jmh, startup, migration and latency.variants on support; and"
                    + " support on none of them");

    @ArchTest
    static final ArchRule packagesAreFreeOfCycles = slices().matching("dev.spool.benchmarks.(**)")
            .should().beFreeOfCycles()
            .because("inside the benchmarks the packages are acyclic");

    @ArchTest
    static final ArchTests everyModule = ArchTests.in(ArchitectureRules.EveryModule.class);
}
