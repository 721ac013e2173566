package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.latency.variants.LatencyVariants;
import dev.spool.benchmarks.support.VariantNames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jlbh all --smoke}, as a user runs it: worker JVMs, JLBH, result files. It asserts that every experiment
 * and variant produced its table, its distribution and its plot; never anything about speed, which on a shared
 * 2-CPU machine under a test suite means nothing. E2's batch variants run at one of its rates only, since a
 * worker JVM a variant is most of a smoke run's time: the code they run is the same at every rate.
 */
class JlbhSmokeTest {
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @Test
    void shouldWriteEveryVariantsTableAndEveryExperimentsPlot(@TempDir final Path results, @TempDir final Path queues)
            throws IOException {
        final List<String> unbatched = LatencyVariants.names().stream().filter(name -> !batched(name)).toList();
        jlbh(results, queues, "all", String.join(",", unbatched));
        for (final LatencyExperiment experiment : LatencyExperiment.ALL) {
            final List<String> variants = experiment.variants().stream().filter(name -> !batched(name)).toList();
            final String text = checkTablesAndPlot(results, queues, experiment.name(), variants);
            if (variants.contains("sync-content")) {
                assertTrue(text.contains("sync-content/chronicle-sync-content") && text.contains("sync-content/sync-every"),
                        "E3b compares each sync policy with Chronicle's and content-based sync with every message\n" + text);
            }
        }
    }

    @Test
    void shouldRunEachBatchVariantOneSampleABatchAndCountItsMessages(@TempDir final Path results,
                                                                       @TempDir final Path queues) throws IOException {
        final String experiment = "E2-40B-1M";
        final List<String> variants = new java.util.ArrayList<>(List.of("floor-tcp"));
        variants.addAll(LatencyVariants.names().stream().filter(JlbhSmokeTest::batched).toList());
        assertEquals(9, variants.size(), "replicated and publish-only, batches of 2, 5, 10 and 20: " + variants);
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
