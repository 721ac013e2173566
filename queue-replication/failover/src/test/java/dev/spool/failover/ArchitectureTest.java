package dev.spool.failover;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import dev.spool.queue.ArchitectureRules;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** queue-failover's dependency rules, as docs/architecture.md states them under "Dependencies". */
@AnalyzeClasses(packages = "dev.spool.failover", importOptions = ArchitectureRules.MainClassesOnly.class)
class ArchitectureTest {
    private static final String[] BELOW_THE_APIS = {"dev.spool.queue.engine", "dev.spool.queue.tools",
        "dev.spool.ringbuffer", "dev.spool.replication.protocol", "dev.spool.replication.source",
        "dev.spool.replication.sink", "dev.spool.replication.agent"};

    @ArchTest
    static final ArchRule usesOnlyTheApisAndCoreInternal = noClasses().that().resideInAPackage("dev.spool.failover..")
            .should().dependOnClassesThat().resideInAnyPackage(packages())
            .because("the failover node runs replication through its API, and reaches queue-core only through its"
                    + " API and its internal package, like every sibling module");

    @ArchTest
    static final ArchRule sourcesImportOnlyTheApisAndCoreInternal =
            ArchitectureRules.sourcesImportNothingFrom("dev.spool.failover..", BELOW_THE_APIS);

    @ArchTest
    static final ArchRule noPublicSignatureExposesAnInternalType =
            ArchitectureRules.noPublicSignatureExposesAnInternalType("dev.spool.failover..");

    @ArchTest
    static final ArchTests everyModule = ArchTests.in(ArchitectureRules.EveryModule.class);

    private static String[] packages() {
        final String[] packages = new String[BELOW_THE_APIS.length];
        for (int i = 0; i < packages.length; i++) {
            packages[i] = BELOW_THE_APIS[i] + "..";
        }
        return packages;
    }
}
