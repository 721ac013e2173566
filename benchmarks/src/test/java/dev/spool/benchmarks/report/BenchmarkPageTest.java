package dev.spool.benchmarks.report;

import dev.spool.benchmarks.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The {@code report} command against real result files: the committed page, and pages made to drift. */
class BenchmarkPageTest {
    /** Surefire runs in the module's directory: the page is the repository's, the result files the module's. */
    private static final Path PAGE = Paths.get("..", "docs", "benchmarks.md");
    private static final Path RESULTS = Paths.get("results");
    private static final String E3B = "20261121T040930Z-jlbh-E3b-1024B-50K.txt";
    private static final String JMH = "20261121T053005Z-jmh-all.txt";

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @TempDir
    Path directory;

    @Test
    void shouldFindEveryTableOfTheCommittedPageAsItsResultFileGivesIt() {
        final int status = report("--check", "--page", PAGE.toString(), "--results", RESULTS.toString());
        assertEquals(0, status, errors());
        assertTrue(BenchmarkPage.read(PAGE).tableNames().size() >= 10, "docs/benchmarks.md lost its tables");
    }

    @Test
    void shouldNameTheTableThatDiffersFromItsResultFile() throws IOException {
        final Path page = generatedPage();
        final String text = Files.readString(page);
        final String drifted = text.replaceFirst("\\| sync-async \\| [0-9.]+ \\|", "| sync-async | 1.00 |");
        assertFalse(drifted.equals(text), "the test page has no sync-async row to change");
        Files.writeString(page, drifted);

        assertEquals(1, report("--check", "--page", page.toString(), "--results", RESULTS.toString()));
        assertTrue(errors().contains("table E3b differs"), errors());
        assertFalse(errors().contains("table E4 differs"), errors());
        assertEquals(drifted, Files.readString(page), "--check must not write the page");
    }

    @Test
    void shouldRewriteOnlyWhatLiesBetweenTheMarkers() throws IOException {
        final Path page = directory.resolve("page.md");
        Files.writeString(page,
                "# Prose\n\nBefore.\n<!-- table:E4 file=" + JMH + " -->\nstale\n<!-- /table -->\nAfter.\n");

        assertEquals(0, report("--page", page.toString(), "--results", RESULTS.toString()), errors());
        final String text = Files.readString(page);
        assertTrue(text.startsWith("# Prose\n\nBefore.\n<!-- table:E4 file=" + JMH + " -->\nFrom `" + JMH + "`"), text);
        assertTrue(text.endsWith("<!-- /table -->\nAfter.\n"), text);
        assertFalse(text.contains("stale"), text);
        assertTrue(text.contains("| append | 32 B | "), "the floor, Spool and Chronicle side by side: " + text);
        assertEquals(0, report("--check", "--page", page.toString(), "--results", RESULTS.toString()), errors());
    }

    @Test
    void shouldRefuseATableWithoutItsEndMarker() throws IOException {
        final Path page = directory.resolve("page.md");
        Files.writeString(page, "<!-- table:E4 file=" + JMH + " -->\nno end\n");

        assertEquals(1, report("--check", "--page", page.toString(), "--results", RESULTS.toString()));
        assertTrue(errors().contains("table E4 has no <!-- /table -->"), errors());
    }

    @Test
    void shouldNameTheTableWhoseResultFileIsMissing() throws IOException {
        final Path page = directory.resolve("page.md");
        Files.writeString(page, "<!-- table:E9 file=20000101T000000Z-jlbh-E9.txt -->\n<!-- /table -->\n");

        assertEquals(1, report("--check", "--page", page.toString(), "--results", RESULTS.toString()));
        assertTrue(errors().contains("table E9") && errors().contains("20000101T000000Z-jlbh-E9.txt"), errors());
    }

    /** @return a page with a JLBH table and a JMH table, written by the command. */
    private Path generatedPage() throws IOException {
        final Path page = directory.resolve("page.md");
        Files.writeString(page, "<!-- table:E3b file=" + E3B + " ratios=sync-content/sync-every -->\n<!-- /table -->\n"
                + "<!-- table:E4 file=" + JMH + " -->\n<!-- /table -->\n");
        assertEquals(0, report("--page", page.toString(), "--results", RESULTS.toString()), errors());
        return page;
    }

    private int report(final String... options) {
        final String[] args = new String[options.length + 1];
        args[0] = "report";
        System.arraycopy(options, 0, args, 1, options.length);
        return Main.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String errors() {
        return err.toString(StandardCharsets.UTF_8);
    }
}
