package dev.spool.benchmarks.migration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class ImportCommandTest {
    @TempDir
    Path dir;

    @Test
    void shouldTimeAnImportBesideACopyOfTheSameBytesAndCleanUp() throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();

        final int status = ImportCommand.run(new String[]{"--megabytes", "1", "--size", "100", "--runs", "2",
            "--dir", dir.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        final String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(0, status, err.toString(StandardCharsets.UTF_8));
        assertTrue(text.contains("10,000 documents of 100 bytes (1,000,000 bytes)") && text.contains("run  2: import")
                && text.contains("import / plain copy (medians):"), text);
        try (Stream<Path> left = Files.list(dir)) {
            assertEquals(0, left.count(), "the benchmark's directory is deleted");
        }
    }

    @Test
    void shouldRefuseBadOptions() {
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final PrintStream print = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(2, ImportCommand.run(new String[]{"--runs"}, print, print));
        assertEquals(2, ImportCommand.run(new String[]{"--rate", "5"}, print, print));
        assertEquals(2, ImportCommand.run(new String[]{"--runs", "0"}, print, print));
    }
}
