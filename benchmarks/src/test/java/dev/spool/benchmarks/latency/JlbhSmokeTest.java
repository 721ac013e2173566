package dev.spool.benchmarks.latency;

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
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jlbh --smoke}, as a user runs it: worker JVMs, JLBH, result files. It asserts that every experiment
 * and variant produced its table, its distribution and its plot; never anything about speed, which on a shared
 * 2-CPU machine under a test suite means nothing.
 * <p>
 * A worker JVM a variant is most of a smoke run's time (2 to 3 s; half a minute or more for a variant that syncs
 * every message at its experiment's rate), and what a worker adds to a variant (JLBH, the result file, the tables) is
 * the same for every variant: {@code LatencyVariantTest} drives every variant's own send and read paths in every
 * build, and {@code LatencyTablesTest} the pairs the ratios compare. So every build runs the short form (in the slow
 * execution): two experiments in one command, with the floor, Spool, and a Spool variant beside its Chronicle Queue
 * peer, and the smallest batch of replication. {@code -Pslow} ({@code -Dspool.soak=full}) runs
 * {@code jlbh all --smoke}, every variant in every experiment, and every batch size. E2's batch variants run at one
 * of its rates only, in a test of their own.
 */
class JlbhSmokeTest {
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    private static final boolean FULL = "full".equals(System.getProperty("spool.soak", "short"));

    @Test
    @Tag("slow")
    void shouldWriteEveryVariantsTableAndEveryExperimentsPlot(@TempDir final Path results, @TempDir final Path queues)
            throws IOException {
        final Map<LatencyExperiment, List<String>> plan = FULL ? everyVariantInEveryExperiment() : twoExperiments();
        if (FULL) {
            jlbh(results, queues, List.of("all"), String.join(",", LatencyVariants.names().stream().filter(name -> !batched(name)).toList()));
        } else {
            jlbh(results, queues, plan.keySet().stream().map(LatencyExperiment::name).toList(),
                    String.join(",", plan.values().stream().flatMap(List::stream).distinct().toList()));
        }
        final Set<String> ran = new HashSet<>();
        for (final Map.Entry<LatencyExperiment, List<String>> experiment : plan.entrySet()) {
            final List<String> variants = experiment.getValue();
            final String text = checkTablesAndPlot(results, queues, experiment.getKey().name(), variants);
            if (variants.contains("sync-content") && variants.contains("chronicle-sync-content")) {
                assertTrue(text.contains("sync-content/chronicle-sync-content"),
                        "E3b compares each sync policy with Chronicle's\n" + text);
            }
            if (variants.contains("sync-content") && variants.contains("sync-every")) {
                assertTrue(text.contains("sync-content/sync-every"),
                        "E3b compares content-based sync with a sync per message\n" + text);
            }
            ran.addAll(variants);
        }
        if (FULL) {
            assertEquals(LatencyVariants.names().stream().filter(name -> !batched(name)).collect(Collectors.toSet()), ran,
                    "every variant ran in an experiment");
        }
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
     * @return E1's first experiment with the floor and plain Spool, and E3b with its floor, content-based sync and
     * Chronicle Queue's: a ratio over the floor in each, and one of Spool over its Chronicle peer; each variant in
     * one command's experiments only where the experiment names it.
     */
    private static Map<LatencyExperiment, List<String>> twoExperiments() {
        final Map<LatencyExperiment, List<String>> plan = new LinkedHashMap<>();
        plan.put(experiment("E1-32B-50K"), List.of(VariantNames.FLOOR, VariantNames.SPOOL));
        plan.put(experiment("E3b-1024B-50K"), List.of(VariantNames.FLOOR, "sync-content", "chronicle-sync-content"));
        return plan;
    }

    private static LatencyExperiment experiment(final String name) {
        return LatencyExperiment.ALL.stream().filter(experiment -> experiment.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no experiment " + name));
    }

    @Test
    @Tag("slow")
    void shouldRunEachBatchVariantOneSampleABatchAndCountItsMessages(@TempDir final Path results,
                                                                       @TempDir final Path queues) throws IOException {
        // E2's lowest rate: its smoke run is 0.25 s twice, and the fewer messages, the sooner the TCP floor is done
        final String experiment = "E2-40B-166667";
        final List<String> batched = LatencyVariants.names().stream().filter(JlbhSmokeTest::batched).toList();
        assertEquals(8, batched.size(), "replicated and publish-only, batches of 2, 5, 10 and 20: " + batched);
        final List<String> variants = new ArrayList<>(List.of("floor-tcp"));
        // the batch size is only a number to JlbhRun, whatever the variant: the smallest batch of replication in every
        // build (LatencyVariantTest drives every batch variant), all with -Pslow
        variants.addAll(FULL ? batched : List.of("spool-replicated-b2"));
        jlbh(results, queues, List.of(experiment), String.join(",", variants));
        final String text = checkTablesAndPlot(results, queues, experiment, variants);
        for (final String variant : variants.subList(1, variants.size())) {
            final int batch = LatencyVariants.create(variant).messagesPerSend();
            // 0.25 s at 166,667 msg/s is 41,667 messages, in whole batches: 41,667 / batch sends, rounded up, of one
            // sample each
            final long messages = (41_667 + batch - 1) / batch * batch;
            assertTrue(text.contains(String.format(Locale.ROOT, "(%,d messages a run in batches of %d, one sample a batch)",
                            messages, batch)), variant + "\n" + text);
            assertTrue(text.contains("(a sample per batch of " + batch + ")"), variant + "\n" + text);
        }
    }

    private static boolean batched(final String variant) {
        return LatencyVariants.create(variant).messagesPerSend() > 1;
    }

    private static void jlbh(final Path results, final Path queues, final List<String> experiments,
                             final String variants) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final List<String> commandLine = new ArrayList<>(List.of("jlbh"));
        commandLine.addAll(experiments);
        commandLine.addAll(List.of("--smoke", "--variant", variants, "--results", results.toString(),
                "--dir", queues.toString()));
        final String[] options = commandLine.subList(1, commandLine.size()).toArray(new String[0]);
        final int status = JlbhLauncher.run(options, commandLine.toArray(new String[0]),
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
