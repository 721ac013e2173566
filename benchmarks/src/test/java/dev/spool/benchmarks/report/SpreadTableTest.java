package dev.spool.benchmarks.report;

import dev.spool.benchmarks.Main;
import dev.spool.benchmarks.report.JlbhTable.Variant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The spread of one experiment over several invocations, from real result files and from made-up medians. */
class SpreadTableTest {
    private static final Path RESULTS = Paths.get("results");
    /** Four invocations of E1 at 32 B and 250K msg/s, with different sets of variants. */
    private static final List<String> E1 = List.of("20261121T024010Z-jlbh-E1-32B-250K.txt",
            "20261121T040304Z-jlbh-E1-32B-250K.txt", "20261124T151202Z-jlbh-E1-32B-250K.txt",
            "20261126T030840Z-jlbh-E1-32B-250K.txt");

    @TempDir
    Path directory;

    @Test
    void shouldShowEveryVariantsMinMedianAndMaxOverTheInvocationsThatRanIt() throws IOException {
        final Path page = directory.resolve("page.md");
        Files.writeString(page, "<!-- table:E1-spread files=" + String.join(",", E1) + " -->\n<!-- /table -->\n");
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status = Main.run(new String[]{"report", "--page", page.toString(), "--results", RESULTS.toString()},
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        final String text = Files.readString(page);
        assertTrue(text.contains("Spread over 4 invocations of 4 commands"), "each command is named once\n" + text);
        for (final String file : E1) {
            assertTrue(text.contains("`" + file + "`"), "the caption names every invocation's file\n" + text);
        }
        assertTrue(text.matches("(?s).*\\n\\| spool \\| \\d of 4 \\| [0-9.,]+ · [0-9.,]+ · [0-9.,]+ \\|.*"),
                "spool ran in all four invocations\n" + text);
        assertTrue(text.matches("(?s).*\\n\\| floor-beside-disk-writer \\| \\d of 1 \\|.*"),
                "a variant of one invocation only counts that one\n" + text);
        assertTrue(text.matches("(?s).*\\n\\| chronicle \\| \\d of 4 \\| [^|]+ \\| [^|]+ \\| [^|]+ \\| [0-9.]+ \\([0-9.]+ to"
                + " [0-9.]+\\) in \\d of 4 · [^|]+ \\|  \\|\\n.*"), "chronicle to the floor, and no ratio to itself\n" + text);
        assertEquals(0, Main.run(new String[]{"report", "--check", "--page", page.toString(), "--results",
                        RESULTS.toString()}, new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8)), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void shouldSplitBimodalP50sAtTheWidestGapAndPairOnlyP50sOfOneMode() {
        // the floor at 0.2 or 0.6 us from one launch to the next, the queue 10 % above its floor in each
        final List<Map<String, Variant>> invocations = new ArrayList<>();
        final double[] floors = {0.21, 0.62, 0.20, 0.59};
        final double[] queues = {0.23, 0.68, 0.61, 0.65};
        for (int i = 0; i < floors.length; i++) {
            invocations.add(Map.of("floor", variant("floor", floors[i]), "spool", variant("spool", queues[i])));
        }
        final double split = SpreadTable.modeSplit(invocations);
        assertTrue(split > 0.23 && split < 0.59, "the split lies in the gap between the modes: " + split);

        final List<Map<String, Variant>> oneMode = List.of(Map.of("floor", variant("floor", 0.60)),
                Map.of("floor", variant("floor", 0.65)));
        assertTrue(Double.isNaN(SpreadTable.modeSplit(oneMode)), "one mode: no split");
    }

    private static Variant variant(final String name, final double p50) {
        final List<double[]> rows = new ArrayList<>();
        for (int row = 0; row < JlbhTable.SHOWN.size(); row++) {
            rows.add(new double[]{row == 0 ? p50 : 10 * (row + 1)});
        }
        return new Variant(name, new boolean[]{true}, rows);
    }
}
