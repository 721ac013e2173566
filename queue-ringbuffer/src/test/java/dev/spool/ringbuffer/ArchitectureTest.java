package dev.spool.ringbuffer;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import dev.spool.queue.ArchitectureRules;

/** queue-ringbuffer's package rules, as docs/architecture.md states them under "Packages" and "Dependencies". */
@AnalyzeClasses(packages = "dev.spool.ringbuffer", importOptions = ArchitectureRules.MainClassesOnly.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule usesNoEngineToolsOrTheOtherSibling =
            ArchitectureRules.siblingUsesNoEngineToolsOrOther("dev.spool.ringbuffer..", "dev.spool.replication..");

    @ArchTest
    static final ArchRule sourcesImportNoEngineToolsOrTheOtherSibling =
            ArchitectureRules.siblingSourcesImportNoEngineToolsOrOther("dev.spool.ringbuffer..", "dev.spool.replication");

    @ArchTest
    static final ArchRule noPublicSignatureExposesAnInternalType =
            ArchitectureRules.noPublicSignatureExposesAnInternalType("dev.spool.ringbuffer..");

    @ArchTest
    static final ArchTests everyModule = ArchTests.in(ArchitectureRules.EveryModule.class);
}
