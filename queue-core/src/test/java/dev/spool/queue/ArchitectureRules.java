package dev.spool.queue;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The rules every module's {@code ArchitectureTest} shares (docs/architecture.md, "Packages" and "Dependencies").
 * Each module's test analyses that module's main classes only; what they depend on is resolved from the class path.
 */
public final class ArchitectureRules {

    /** The package whose types are not API; no public signature of a sibling module may show one. */
    public static final String INTERNAL = "dev.spool.queue.internal..";

    /** No package is called {@code impl}: implementation classes are package-private instead. */
    public static final ArchRule NO_IMPL_PACKAGE = noClasses().should().resideInAPackage("..impl..")
            .because("implementation classes are package-private; there is no public impl package (STYLE 4)");

    /** Where each module keeps its main sources: the tests run in the module's directory. */
    private static final Path SOURCE_ROOT = Path.of("src", "main", "java");

    /** Where annotation processors write the main sources they generate. */
    private static final Path GENERATED_SOURCE_ROOT = Path.of("target", "generated-sources", "annotations");

    /** Every package has a {@code package-info.java} that says what it holds and whether it is API. */
    public static final ArchRule EVERY_PACKAGE_HAS_PACKAGE_INFO = classes()
            .should(resideInAPackageWithPackageInfo(SOURCE_ROOT))
            .because("every package has a package-info.java that says what it holds and whether it is API");

    /**
     * No import circle among the analysed classes crosses a package boundary. Nested classes count as their
     * top-level class; each strongly connected component of the classes' dependency graph must lie in one package,
     * so the packages can be read, and changed, one after another.
     */
    public static final ArchRule NO_IMPORT_CIRCLE_CROSSES_A_PACKAGE = classes()
            .should(new ImportCircles())
            .because("a circle of classes across packages ties those packages together: neither can be read, tested"
                    + " or changed without the other");

    /**
     * Spool owns its format: Chronicle Queue, and Chronicle Wire that comes with it, are read only by the import's
     * module (and run beside Spool by the benchmarks, which compare the two).
     */
    public static final ArchRule ONLY_THE_IMPORT_READS_CHRONICLE_QUEUE = noClasses()
            .that().resideOutsideOfPackages("dev.spool.importer..", "dev.spool.benchmarks..")
            .should().dependOnClassesThat().resideInAnyPackage("net.openhft.chronicle.queue..",
                    "net.openhft.chronicle.wire..")
            .allowEmptyShould(true)
            .because("Spool owns its format; Chronicle Queue is a dependency of the import's module only");

    private ArchitectureRules() {
    }

    /**
     * The rule that the public and protected members of the public types in {@code packageIdentifier} name no type
     * of the internal package: no parameter, return, exception, field, supertype or type argument.
     *
     * @param packageIdentifier the module's packages, as ArchUnit names them ({@code "dev.spool.ringbuffer.."}).
     * @return the rule.
     */
    public static ArchRule noPublicSignatureExposesAnInternalType(final String packageIdentifier) {
        return classes().that().resideInAPackage(packageIdentifier).and().arePublic()
                .should(exposeNoTypeOf(INTERNAL))
                .because("no public signature of either module exposes an internal type: internal carries no promise"
                        + " of compatibility between versions");
    }

    /**
     * The rule that a sibling module (queue-ringbuffer or queue-replication) uses neither the engine nor the tools,
     * nor the other sibling.
     *
     * @param module the module's packages, as ArchUnit names them ({@code "dev.spool.ringbuffer.."}).
     * @param other  the other sibling's packages.
     * @return the rule, on the classes as compiled.
     */
    public static ArchRule siblingUsesNoEngineToolsOrOther(final String module, final String other) {
        return noClasses().that().resideInAPackage(module)
                .should().dependOnClassesThat().resideInAnyPackage("dev.spool.queue.engine..",
                        "dev.spool.queue.tools..", other)
                .because("queue-ringbuffer and queue-replication use the API, internal and format, never engine or"
                        + " tools, and never each other: every module has a clean downward dependency");
    }

    /**
     * The same rule on the sources' imports, which also show the constants javac copies into a class.
     *
     * @param module the module's packages, as ArchUnit names them.
     * @param other  the other sibling's package, as an import names it ({@code "dev.spool.replication"}).
     * @return the rule, on the sources.
     */
    public static ArchRule siblingSourcesImportNoEngineToolsOrOther(final String module, final String other) {
        return sourcesImportNothingFrom(module, "dev.spool.queue.engine", "dev.spool.queue.tools", other)
                .because("ring and replication never use engine or tools and never import each other, not even a"
                        + " constant");
    }

    /**
     * The rule that no source file of {@code packageIdentifier} imports from {@code packages}. The class files cannot
     * show it when only constants are used (javac copies a constant into the class that reads it), so this reads the
     * import statements of the sources, as a reader of the code sees the dependency.
     *
     * @param packageIdentifier the packages whose sources are read, as ArchUnit names them.
     * @param packages the packages, each with its subpackages, that they do not import from.
     * @return the rule.
     */
    public static ArchRule sourcesImportNothingFrom(final String packageIdentifier, final String... packages) {
        return classes().that().resideInAPackage(packageIdentifier).and().areTopLevelClasses()
                .should(importNothingFrom(List.of(packages)));
    }

    /** Leaves out the classes of tests, the jars (queue-core's test jar among them) and JMH's generated code. */
    public static final class MainClassesOnly implements ImportOption {
        private static final ImportOption NO_TESTS = new DoNotIncludeTests();
        private static final ImportOption NO_JARS = new DoNotIncludeJars();

        /** Creates the option; ArchUnit calls it. */
        public MainClassesOnly() {
        }

        @Override
        public boolean includes(final Location location) {
            return NO_TESTS.includes(location) && NO_JARS.includes(location) && !location.contains("/jmh_generated/");
        }
    }

    /**
     * Finds the strongly connected components (Tarjan) of the top-level classes' dependency graph and reports each
     * one whose classes lie in more than one package, with its classes.
     */
    private static final class ImportCircles extends ArchCondition<JavaClass> {
        private final Map<JavaClass, Set<JavaClass>> edges = new LinkedHashMap<>();
        private final Map<JavaClass, Integer> indices = new HashMap<>();
        private final Map<JavaClass, Integer> lowLinks = new HashMap<>();
        private final Deque<JavaClass> stack = new ArrayDeque<>();
        private final Set<JavaClass> onStack = new HashSet<>();
        private final List<List<JavaClass>> components = new ArrayList<>();

        ImportCircles() {
            super("be in no import circle that crosses a package boundary");
        }

        @Override
        public void init(final Collection<JavaClass> allClasses) {
            edges.clear();
            indices.clear();
            lowLinks.clear();
            stack.clear();
            onStack.clear();
            components.clear();
            for (final JavaClass javaClass : allClasses) {
                edges.computeIfAbsent(topLevel(javaClass), key -> new LinkedHashSet<>());
            }
            for (final JavaClass javaClass : allClasses) {
                final JavaClass source = topLevel(javaClass);
                for (final Dependency dependency : javaClass.getDirectDependenciesFromSelf()) {
                    final JavaClass target = topLevel(dependency.getTargetClass().getBaseComponentType());
                    if (!target.equals(source) && edges.containsKey(target)) {
                        edges.get(source).add(target);
                    }
                }
            }
            for (final JavaClass node : edges.keySet()) {
                if (!indices.containsKey(node)) {
                    connect(node);
                }
            }
        }

        @Override
        public void check(final JavaClass javaClass, final ConditionEvents events) {
            // the components are judged together, in finish
        }

        @Override
        public void finish(final ConditionEvents events) {
            for (final List<JavaClass> component : components) {
                final Set<String> packages = new TreeSet<>();
                component.forEach(member -> packages.add(member.getPackageName()));
                if (packages.size() > 1) {
                    final List<String> names = new ArrayList<>();
                    component.forEach(member -> names.add(member.getName()));
                    Collections.sort(names);
                    events.add(SimpleConditionEvent.violated(component,
                            "import circle across " + packages + ": " + names));
                }
            }
        }

        private void connect(final JavaClass node) {
            indices.put(node, indices.size());
            lowLinks.put(node, indices.get(node));
            stack.push(node);
            onStack.add(node);
            for (final JavaClass next : edges.get(node)) {
                if (!indices.containsKey(next)) {
                    connect(next);
                    lowLinks.put(node, Math.min(lowLinks.get(node), lowLinks.get(next)));
                } else if (onStack.contains(next)) {
                    lowLinks.put(node, Math.min(lowLinks.get(node), indices.get(next)));
                }
            }
            if (lowLinks.get(node).equals(indices.get(node))) {
                final List<JavaClass> component = new ArrayList<>();
                JavaClass member;
                do {
                    member = stack.pop();
                    onStack.remove(member);
                    component.add(member);
                } while (!member.equals(node));
                components.add(component);
            }
        }

        private static JavaClass topLevel(final JavaClass javaClass) {
            JavaClass outer = javaClass;
            while (outer.getEnclosingClass().isPresent()) {
                outer = outer.getEnclosingClass().get();
            }
            return outer;
        }
    }

    private static ArchCondition<JavaClass> resideInAPackageWithPackageInfo(final Path sourceRoot) {
        return new ArchCondition<>("reside in a package with a package-info.java") {
            @Override
            public void check(final JavaClass javaClass, final ConditionEvents events) {
                final String packageName = javaClass.getPackageName();
                final Path packageInfo = sourceRoot.resolve(packageName.replace('.', '/')).resolve("package-info.java");
                if (!Files.isRegularFile(packageInfo)) {
                    events.add(SimpleConditionEvent.violated(javaClass,
                            javaClass.getName() + " is in package " + packageName + ", which has no " + packageInfo));
                }
            }
        };
    }

    private static ArchCondition<JavaClass> importNothingFrom(final List<String> packages) {
        return new ArchCondition<>("import nothing from " + packages + " in their sources") {
            @Override
            public void check(final JavaClass javaClass, final ConditionEvents events) {
                final Path file = Path.of(javaClass.getPackageName().replace('.', '/'))
                        .resolve(javaClass.getSourceCodeLocation().getSourceFileName());
                final Path source = SOURCE_ROOT.resolve(file);
                if (!Files.exists(source) && Files.exists(GENERATED_SOURCE_ROOT.resolve(file))) {
                    return; // written by an annotation processor (the typed writers and readers): no import is chosen
                }
                final List<String> lines;
                try {
                    lines = Files.readAllLines(source);
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read the source of " + javaClass.getName(), e);
                }
                for (final String line : lines) {
                    final String imported = line.strip().replaceFirst("^import\\s+(static\\s+)?", "");
                    if (line.strip().startsWith("import ")
                            && packages.stream().anyMatch(name -> imported.startsWith(name + "."))) {
                        events.add(SimpleConditionEvent.violated(javaClass, source + ": " + line.strip()));
                    }
                }
            }
        };
    }

    private static ArchCondition<JavaClass> exposeNoTypeOf(final String packageIdentifier) {
        final DescribedPredicate<JavaClass> hidden = JavaClass.Predicates.resideInAPackage(packageIdentifier);
        return new ArchCondition<>("expose no type of " + packageIdentifier + " in a public signature") {
            @Override
            public void check(final JavaClass javaClass, final ConditionEvents events) {
                final List<String> exposed = new ArrayList<>();
                if (javaClass.getRawSuperclass().map(hidden::test).orElse(false)) {
                    exposed.add("extends " + javaClass.getRawSuperclass().get().getName());
                }
                for (final JavaClass type : javaClass.getRawInterfaces()) {
                    if (hidden.test(type)) {
                        exposed.add("implements " + type.getName());
                    }
                }
                for (final JavaCodeUnit unit : javaClass.getCodeUnits()) {
                    if (visible(unit.getModifiers())) {
                        final List<JavaClass> involved = new ArrayList<>(unit.getReturnType().getAllInvolvedRawTypes());
                        unit.getParameterTypes().forEach(type -> involved.addAll(type.getAllInvolvedRawTypes()));
                        involved.addAll(unit.getThrowsClause().getTypes());
                        involved.stream().filter(hidden::test).distinct().forEach(
                                type -> exposed.add(unit.getFullName() + " names " + type.getName()));
                    }
                }
                for (final JavaField field : javaClass.getFields()) {
                    if (visible(field.getModifiers())) {
                        field.getType().getAllInvolvedRawTypes().stream().filter(hidden::test).forEach(
                                type -> exposed.add(field.getFullName() + " is a " + type.getName()));
                    }
                }
                exposed.forEach(what -> events.add(SimpleConditionEvent.violated(javaClass, what)));
            }
        };
    }

    private static boolean visible(final Set<JavaModifier> modifiers) {
        return (modifiers.contains(JavaModifier.PUBLIC) || modifiers.contains(JavaModifier.PROTECTED))
                && !modifiers.contains(JavaModifier.SYNTHETIC) && !modifiers.contains(JavaModifier.BRIDGE);
    }

    /**
     * The rules every module holds, for an {@code ArchitectureTest} to include with
     * {@code @ArchTest static final ArchTests everyModule = ArchTests.in(ArchitectureRules.EveryModule.class)}.
     */
    public static final class EveryModule {
        @ArchTest
        static final ArchRule noImportCircleCrossesAPackage = NO_IMPORT_CIRCLE_CROSSES_A_PACKAGE;

        @ArchTest
        static final ArchRule noImplPackage = NO_IMPL_PACKAGE;

        @ArchTest
        static final ArchRule everyPackageHasPackageInfo = EVERY_PACKAGE_HAS_PACKAGE_INFO;

        @ArchTest
        static final ArchRule onlyTheImportReadsChronicleQueue = ONLY_THE_IMPORT_READS_CHRONICLE_QUEUE;

        private EveryModule() {
        }
    }
}
