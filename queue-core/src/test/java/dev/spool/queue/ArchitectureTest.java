package dev.spool.queue;

import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.junit.ArchTests;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.core.domain.properties.HasName.Predicates.nameMatching;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * queue-core's package rules, as docs/architecture.md states them under "Packages" and "Dependencies". The
 * sibling modules' rules are in their own {@code ArchitectureTest}.
 */
@AnalyzeClasses(packages = "dev.spool.queue", importOptions = ArchitectureRules.MainClassesOnly.class)
class ArchitectureTest {

    /** The API's public types, each one row of docs/architecture.md's table of {@code dev.spool.queue}. */
    private static final String DOCUMENTED_API_TYPES = "dev\\.spool\\.queue\\.(SpoolQueue|SpoolQueueBuilder"
            + "|ExcerptAppender|ExcerptReader|ExcerptTailer|ExcerptHandler|Direction|CommitMode|IndexFormat"
            + "|SyncPolicy|ExcerptPredicate|ExcerptValue|SyncMarkerHandler|GroupCommit|Pretoucher|RollCycle"
            + "|CycleListener|SpoolException|CorruptQueueException|RepairRefusedException|QueueMXBean|AgentMXBean)";

    /** QueueEngine and its nested types: the engine's one public entry point. */
    private static final String ENGINE_ENTRY_POINT = "dev\\.spool\\.queue\\.engine\\.QueueEngine(\\$.*)?";

    @ArchTest
    static final ArchRule formatImportsNothingFromSpool = noClasses()
            .that().resideInAPackage("dev.spool.queue.format")
            .should().dependOnClassesThat(resideInAPackage("dev.spool..")
                    .and(resideOutsideOfPackage("dev.spool.queue.format")))
            .because("format imports nothing from Spool: the layouts are the one definition that the engine writes"
                    + " and the tools check the files against");

    @ArchTest
    static final ArchRule formatSourcesImportNothingFromSpool = ArchitectureRules.sourcesImportNothingFrom(
            "dev.spool.queue.format", "dev.spool.queue.engine", "dev.spool.queue.internal", "dev.spool.queue.tools",
            "dev.spool.queue.typed", "dev.spool.ringbuffer", "dev.spool.replication")
            .because("format imports nothing from Spool, not even a constant");

    @ArchTest
    static final ArchRule toolsNeverUseTheEngine = noClasses()
            .that().resideInAPackage("dev.spool.queue.tools")
            .should().dependOnClassesThat().resideInAPackage("dev.spool.queue.engine..")
            .because("the tools read the files themselves, and the descriptors are what they check the files"
                    + " against");

    @ArchTest
    static final ArchRule toolsSourcesNeverImportTheEngine = ArchitectureRules.sourcesImportNothingFrom(
            "dev.spool.queue.tools", "dev.spool.queue.engine")
            .because("the tools never use the engine, not even a constant");

    @ArchTest
    static final ArchRule apiReachesTheEngineOnlyThroughQueueEngine = noClasses()
            .that().resideInAPackage("dev.spool.queue")
            .should().dependOnClassesThat(resideInAPackage("dev.spool.queue.engine")
                    .and(not(nameMatching(ENGINE_ENTRY_POINT))))
            .because("the API reaches the engine only through QueueEngine, so the rest of the engine is visible only"
                    + " inside its own package");

    @ArchTest
    static final ArchRule internalNeverUsesTheEngineOrTheFacade = noClasses()
            .that().resideInAPackage("dev.spool.queue.internal")
            .should().dependOnClassesThat().resideInAPackage("dev.spool.queue.engine..")
            .orShould().dependOnClassesThat().haveFullyQualifiedName(SpoolQueue.class.getName())
            .because("no class of internal refers to SpoolQueue, and none refers to the engine: the engine implements"
                    + " internal's interfaces, and the sibling modules reach them through SpoolQueue.unwrap");

    @ArchTest
    static final ArchRule noEngineClassRefersToTheFacade = noClasses()
            .that().resideInAPackage("dev.spool.queue.engine")
            .should().dependOnClassesThat().haveFullyQualifiedName(SpoolQueue.class.getName())
            .orShould().dependOnClassesThat().haveFullyQualifiedName(SpoolQueueBuilder.class.getName())
            .because("no class of the engine refers to SpoolQueue or SpoolQueueBuilder, the facade: the engine reads"
                    + " the concluded QueueConfig and works on a Store");


    @ArchTest
    static final ArchRule apiHoldsOnlyTheDocumentedTypes = classes()
            .that().resideInAPackage("dev.spool.queue").and().arePublic().and().areTopLevelClasses()
            .should().haveNameMatching(DOCUMENTED_API_TYPES)
            .because("dev.spool.queue is the API: the public types an application uses, and nothing else public");

    @ArchTest
    static final ArchTests everyModule = ArchTests.in(ArchitectureRules.EveryModule.class);
}
