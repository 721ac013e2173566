package dev.spool.benchmarks;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MainTest {
    @Test
    void shouldPrintUsageOnHelpAndRefuseUnknownCommands() {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
        final PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8);
        assertEquals(0, Main.run(new String[]{"--help"}, outStream, errStream));
        assertEquals(0, Main.run(new String[]{"jmh", "--help"}, outStream, errStream));
        assertEquals(0, Main.run(new String[]{"jlbh", "--help"}, outStream, errStream));
        assertTrue(out.toString(StandardCharsets.UTF_8).startsWith("Usage:"));
        assertEquals(2, Main.run(new String[]{"jlbh2"}, outStream, errStream));
        assertEquals(2, Main.run(new String[]{"jmh", "--dir"}, outStream, errStream));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("--dir needs a value"));
        assertEquals(2, Main.run(new String[]{"all", "--rate", "5"}, outStream, errStream));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("unknown option '--rate' for all"));
        assertEquals(2, Main.run(new String[]{"all", "--results"}, outStream, errStream));
    }
}
