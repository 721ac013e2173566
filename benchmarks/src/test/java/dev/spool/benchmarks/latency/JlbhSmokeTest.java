package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.latency.variants.LatencyVariant;
import dev.spool.benchmarks.latency.variants.LatencyVariants;
import dev.spool.benchmarks.support.VariantNames;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jlbh --smoke}, as a user runs it: worker JVMs, JLBH, result files. It asserts that every experiment
 * and variant produced its table, its distribution and its plot; never anything about speed, which on a shared
 * 2-CPU machine under a test suite means nothing.
 * <p>
 * A worker JVM a variant is most of a smoke run's time, and what a worker adds to a variant (JLBH, the result file,
 * the tables) is the same for every variant of a kind: {@code LatencyVariantTest} drives every variant's own send and
 * read paths in every build. So every build runs the short form (in the slow execution): each experiment with its
 * floor, one variant of each kind ({@link LatencyVariant} class) in one of the experiments of its group, and the
 * variants whose comparison E3b's table states (content-based sync with Chronicle Queue's and with a sync per
 * message), and the smallest batch of replication and of publish.
 * {@code -Pslow} ({@code -Dspool.soak=full}) runs {@code jlbh all --smoke}, every variant in every experiment, and
 * every batch size. E2's batch variants run at one of its rates only, in a test of their own.
 */
class JlbhSmokeTest {
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    private static final boolean FULL = "full".equals(System.getProperty("spool.soak", "short"));
    /** The variants of the comparisons E3b's table makes, beside the first of each kind. */
    private static final Set<String> COMPARED = Set.of("sync-content", "sync-every", "chronicle-sync-content");

    @Test
    @Tag("slow")
    void shouldWriteEveryVariantsTableAndEveryExperimentsPlot(@TempDir final Path results, @TempDir final Path queues)
            throws IOException {
        final Map<LatencyExperiment, List<String>> plan = FULL ? everyVariantInEveryExperiment() : eachKindOnce();
        if (FULL) {
            jlbh(results, queues, "all", String.join(",", LatencyVariants.names().stream().filter(name -> !batched(name)).toList()));
        }
        final Set<Class<?>> kinds = new HashSet<>();
        for (final Map.Entry<LatencyExperiment, List<String>> experiment : plan.entrySet()) {
            final List<String> variants = experiment.getValue();
            if (!FULL) {
                jlbh(results, queues, experiment.getKey().name(), String.join(",", variants));
            }
            final String text = checkTablesAndPlot(results, queues, experiment.getKey().name(), variants);
            if (variants.contains("sync-content")) {
                assertTrue(text.contains("sync-content/chronicle-sync-content") && text.contains("sync-content/sync-every"),
                        "E3b compares each sync policy with Chronicle's and content-based sync with every message\n" + text);
            }
            variants.forEach(variant -> kinds.add(kind(variant)));
        }
        final Set<Class<?>> every = new HashSet<>();
        LatencyVariants.names().forEach(variant -> every.add(kind(variant)));
        assertEquals(every, kinds, "every kind of variant ran");
    }

    /** @return every experiment with every variant of it but the batched ones: {@code jlbh all}. */
    private static Map<LatencyExperiment, List<String>> everyVariantInEveryExperiment() {
        final Map<LatencyExperiment, List<String>> plan = new LinkedHashMap<>();
        for (final LatencyExperiment experiment : LatencyExperiment.ALL) {
            plan.put(experiment, experiment.variants().stream().filter(name -> !batched(name)).toList());
        }
        return plan;
    }

    /**
     * @return every experiment with its floor (the first of its variants, which the others are divided by) and, in
     * turn, the first variant of each kind that no experiment before runs, and the variants E3b compares.
     */
    private static Map<LatencyExperiment, List<String>> eachKindOnce() {
        final Map<String, List<LatencyExperiment>> groups = new LinkedHashMap<>();
        for (final LatencyExperiment experiment : LatencyExperiment.ALL) {
            groups.computeIfAbsent(experiment.group(), group -> new ArrayList<>()).add(experiment);
        }
        final Map<LatencyExperiment, List<String>> plan = new LinkedHashMap<>();
        final Set<Class<?>> kinds = new HashSet<>();
        for (final List<LatencyExperiment> group : groups.values()) {
            final List<String> variants = group.get(0).variants().stream().filter(name -> !batched(name)).toList();
            for (final LatencyExperiment experiment : group) {
                assertEquals(group.get(0).variants(), experiment.variants(), "one group, one list of variants");
                plan.put(experiment, new ArrayList<>(List.of(variants.get(0))));
            }
            kinds.add(kind(variants.get(0)));
            int next = 0;
            for (final String variant : variants.subList(1, variants.size())) {
                if (kinds.add(kind(variant)) || COMPARED.contains(variant)) {
                    plan.get(group.get(next++ % group.size())).add(variant);
                }
            }
        }
        return plan;
    }

    private static Class<?> kind(final String variant) {
        return LatencyVariants.create(variant).getClass();
    }

    @Test
    @Tag("slow")
    void shouldRunEachBatchVariantOneSampleABatchAndCountItsMessages(@TempDir final Path results,
                                                                       @TempDir final Path queues) throws IOException {
        final String experiment = "E2-40B-1M";
        final List<String> batched = LatencyVariants.names().stream().filter(JlbhSmokeTest::batched).toList();
        assertEquals(8, batched.size(), "replicated and publish-only, batches of 2, 5, 10 and 20: " + batched);
        final List<String> variants = new ArrayList<>(List.of("floor-tcp"));
        // the batch size is only a number to the code: the smallest batch of each kind in every build, all with -Pslow
        variants.addAll(FULL ? batched : List.of("spool-replicated-b2", "spool-publish-b2"));
        jlbh(results, queues, experiment, String.join(",", variants));
        final String text = checkTablesAndPlot(results, queues, experiment, variants);
        for (final String variant : variants.subList(1, variants.size())) {
            final int batch = LatencyVariants.create(variant).messagesPerSend();
            // 0.25 s at 1M msg/s, in whole batches: 250,000 / batch sends of one sample each
            assertTrue(text.contains("(250,000 messages a run in batches of " + batch + ", one sample a batch)"),
                    variant + "\n" + text);
            assertTrue(text.contains("(a sample per batch of " + batch + ")"), variant + "\n" + text);
        }
    }

    private static boolean batched(final String variant) {
        return LatencyVariants.create(variant).messagesPerSend() > 1;
    }

    private static void jlbh(final Path results, final Path queues, final String experiments, final String variants) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final String[] commandLine = {"jlbh", experiments, "--smoke", "--variant", variants,
                "--results", results.toString(), "--dir", queues.toString()};
        final int status = JlbhLauncher.run(Arrays.copyOfRange(commandLine, 1, commandLine.length), commandLine,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
    }

    /** @return the experiment's text file, once its variants' lines, distributions, ratios and plot are checked. */
    private static String checkTablesAndPlot(final Path results, final Path queues, final String experiment,
                                             final List<String> variants) throws IOException {
        final String base = experiment + "-smoke";
        final String text = Files.readString(only(results, base + ".txt"));
        assertTrue(text.contains("# forkFlags: "), "machine facts");
        for (final String variant : variants) {
            assertTrue(text.contains(String.format("  %-14s %d threads spinning: ", variant,
                    LatencyVariants.create(variant).spinningThreads())), variant + "\n" + text);
            assertTrue(text.contains("SUMMARY (" + variant + ": end to end, microseconds)"), variant + "\n" + text);
            assertTrue(Files.size(only(results, base + "-" + variant + ".hgrm")) > 0, variant);
            if (!variant.startsWith(VariantNames.FLOOR)) {
                assertTrue(text.contains(variant + "/floor"), variant + "\n" + text);
            }
        }
        final byte[] png = Files.readAllBytes(only(results, base + ".png"));
        assertArrayEquals(PNG_SIGNATURE, Arrays.copyOf(png, PNG_SIGNATURE.length));
        try (Stream<Path> left = Files.list(queues)) {
            assertEquals(List.of(), left.toList(), "queue directories left behind");
        }
        return text;
    }

    private static Path only(final Path directory, final String suffix) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            final List<Path> matching = files.filter(file -> file.getFileName().toString().endsWith("-jlbh-" + suffix))
                    .toList();
            assertEquals(1, matching.size(), "files ending -jlbh-" + suffix + " in " + directory);
            return matching.get(0);
        }
    }
}
