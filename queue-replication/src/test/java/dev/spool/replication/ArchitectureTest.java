package dev.spool.replication;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import dev.spool.queue.ArchitectureRules;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;

/** queue-replication's package rules, as docs/architecture.md states them under "Packages" and "Dependencies". */
@AnalyzeClasses(packages = "dev.spool.replication", importOptions = ArchitectureRules.MainClassesOnly.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule usesNoEngineToolsOrTheOtherSibling =
            ArchitectureRules.siblingUsesNoEngineToolsOrOther("dev.spool.replication..", "dev.spool.ringbuffer..");

    @ArchTest
    static final ArchRule sourcesImportNoEngineToolsOrTheOtherSibling =
            ArchitectureRules.siblingSourcesImportNoEngineToolsOrOther("dev.spool.replication..", "dev.spool.ringbuffer");

    @ArchTest
    static final ArchRule packagesDependDownward = layeredArchitecture().consideringOnlyDependenciesInLayers()
            .layer("api").definedBy("dev.spool.replication")
            .layer("source").definedBy("dev.spool.replication.source..")
            .layer("sink").definedBy("dev.spool.replication.sink..")
            .layer("agent").definedBy("dev.spool.replication.agent..")
            .layer("protocol").definedBy("dev.spool.replication.protocol..")
            .whereLayer("api").mayNotBeAccessedByAnyLayer()
            .whereLayer("source").mayOnlyBeAccessedByLayers("api")
            .whereLayer("sink").mayOnlyBeAccessedByLayers("api")
            .whereLayer("agent").mayOnlyBeAccessedByLayers("api", "source", "sink")
            .whereLayer("protocol").mayOnlyBeAccessedByLayers("api", "source", "sink", "agent")
            .because("the API uses the source, the sink, the agent plumbing and the protocol; the source and the sink"
                    + " never use each other; the protocol uses nothing of replication");

    @ArchTest
    static final ArchRule noPublicSignatureExposesAnInternalType =
            ArchitectureRules.noPublicSignatureExposesAnInternalType("dev.spool.replication");

    @ArchTest
    static final ArchTests everyModule = ArchTests.in(ArchitectureRules.EveryModule.class);
}
