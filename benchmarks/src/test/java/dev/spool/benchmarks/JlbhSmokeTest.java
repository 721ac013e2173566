package dev.spool.benchmarks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code jlbh all --smoke}, as a user runs it: worker JVMs, JLBH, result files. It asserts that every experiment
 * and variant produced its table, its distribution and its plot; never anything about speed, which on a shared
 * 2-CPU machine under a test suite means nothing.
 */
class JlbhSmokeTest {
    private static final byte[] PNG_SIGNATURE = {(byte) 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

    @Test
    void shouldWriteEveryVariantsTableAndEveryExperimentsPlot(@TempDir final Path results, @TempDir final Path queues)
            throws IOException {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Main.run(new String[]{"jlbh", "all", "--smoke", "--results", results.toString(),
                        "--dir", queues.toString()},
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        final String output = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, output + err.toString(StandardCharsets.UTF_8));
        for (final LatencyExperiment experiment : LatencyExperiment.ALL) {
            final String base = experiment.name() + "-smoke";
            final String text = Files.readString(only(results, base + ".txt"));
            assertTrue(text.contains("# forkFlags: "), "machine facts");
            for (final String variant : experiment.variants()) {
                assertTrue(text.contains(String.format("  %-14s %d threads spinning: ", variant,
                        LatencyVariants.create(variant).spinningThreads())), variant + "\n" + text);
                assertTrue(text.contains("SUMMARY (" + variant + ": end to end, microseconds)"), variant + "\n" + text);
                assertTrue(Files.size(only(results, base + "-" + variant + ".hgrm")) > 0, variant);
            }
            for (final String variant : experiment.variants()) {
                if (!variant.startsWith(LatencyTables.FLOOR)) {
                    assertTrue(text.contains(variant + "/floor"), variant + "\n" + text);
                }
            }
            if (experiment.variants().contains(SyncVariant.CONTENT)) {
                assertTrue(text.contains("sync-content/chronicle-sync-content") && text.contains("sync-content/sync-every"),
                        "E3b compares each sync policy with Chronicle's and content-based sync with every message\n" + text);
            }
            final byte[] png = Files.readAllBytes(only(results, base + ".png"));
            assertArrayEquals(PNG_SIGNATURE, java.util.Arrays.copyOf(png, PNG_SIGNATURE.length));
        }
        try (Stream<Path> left = Files.list(queues)) {
            assertEquals(List.of(), left.toList(), "queue directories left behind");
        }
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
