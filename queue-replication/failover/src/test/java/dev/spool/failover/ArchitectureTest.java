package dev.spool.failover;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaAccess;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;
import dev.spool.queue.ArchitectureRules;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.time.Clock;
import java.time.Instant;

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

    /** A read of the system's clocks, by a call, a method reference or their agrona instances. */
    static final DescribedPredicate<JavaAccess<?>> A_SYSTEM_CLOCK = DescribedPredicate.describe(
            "a system clock (SystemNanoClock.INSTANCE, SystemEpochClock.INSTANCE, System.nanoTime or"
                    + " currentTimeMillis, Instant.now, Clock.systemUTC or systemDefaultZone)",
            access -> {
                final String owner = access.getTargetOwner().getName();
                final String name = access.getTarget().getName();
                return (owner.equals(SystemNanoClock.class.getName()) || owner.equals(SystemEpochClock.class.getName()))
                        && name.equals("INSTANCE")
                        || owner.equals(System.class.getName())
                        && (name.equals("nanoTime") || name.equals("currentTimeMillis"))
                        || owner.equals(Instant.class.getName()) && name.equals("now")
                        || owner.equals(Clock.class.getName())
                        && (name.equals("systemUTC") || name.equals("systemDefaultZone"));
            });

    @ArchTest
    static final ArchRule readsTheClockOnlyThroughItsConfig = noClasses().that()
            .resideInAPackage("dev.spool.failover..").and()
            .doNotHaveFullyQualifiedName("dev.spool.failover.ClusterNode$Builder")
            .should().accessTargetWhere(A_SYSTEM_CLOCK)
            .because("a node's time comes from its config's clocks, defaulted by its builder only, so that its role"
                    + " machine and a test can be given another");

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
