package dev.spool.benchmarks.jmh;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.ProfilerConfig;
import org.openjdk.jmh.runner.options.TimeValue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JmhLauncherTest {
    private static final List<String> FLAGS = List.of("--add-opens=java.base/java.lang=ALL-UNNAMED");
    private static final Path JSON = Path.of("/tmp/result.json");

    @Test
    void shouldTakeItsOwnOptionsAndPassTheRestToJmh() {
        final JmhLauncher.Arguments arguments = JmhLauncher.Arguments.parse(
                new String[]{"Spool", "--quick", "-p", "payloadLength=8", "--dir", "/dev/shm", "--no-gc"});
        assertTrue(arguments.quick);
        assertFalse(arguments.gc);
        assertEquals(Path.of("/dev/shm"), arguments.benchDirectory);
        assertEquals(List.of("Spool", "-p", "payloadLength=8"), arguments.jmhArgs);
    }

    @Test
    void shouldAddForkFlagsGcProfilerAndJsonResultByDefault() throws Exception {
        final Options options = options("Spool");
        assertEquals(List.of("Spool"), options.getIncludes());
        assertEquals(FLAGS, List.copyOf(options.getJvmArgsAppend().get()));
        assertEquals(List.of(new ProfilerConfig(GCProfiler.class.getName())), options.getProfilers());
        assertEquals(JSON.toString(), options.getResult().get());
        assertTrue(options.shouldFailOnError().get());
        assertFalse(options.getWarmupIterations().hasValue(), "the benchmarks' annotations decide");
    }

    @Test
    void shouldShortenEverythingWhenQuickUnlessTheUserSaidOtherwise() throws Exception {
        final Options options = options("--quick", "-wi", "2", "-jvmArgsAppend", "-Xmx2g", "-prof", "gc");
        assertEquals(2, options.getWarmupIterations().get());
        assertEquals(TimeValue.seconds(1), options.getWarmupTime().get());
        assertEquals(1, options.getMeasurementIterations().get());
        assertEquals(TimeValue.seconds(1), options.getMeasurementTime().get());
        assertEquals(1, options.getForkCount().get());
        assertEquals(List.of(FLAGS.get(0), "-Xmx2g"), List.copyOf(options.getJvmArgsAppend().get()));
        assertEquals(1, options.getProfilers().size(), "the user's -prof gc is not doubled");
    }

    @Test
    void shouldWriteTextJsonFactsAndAPlotOfEachRun(@TempDir final Path results) throws Exception {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final String[] commandLine = {"jmh", "(Floor|Spool)Benchmark.read$", "-p", "payloadLength=32", "--quick",
                "--results", results.toString()};
        final int status = JmhLauncher.run(Arrays.copyOfRange(commandLine, 1, commandLine.length), commandLine,
                new PrintStream(out, true, StandardCharsets.UTF_8), new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(0, status, out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8));
        try (Stream<Path> files = Files.list(results)) {
            final List<String> names = files.map(file -> file.getFileName().toString()).sorted().toList();
            assertEquals(4, names.size(), names.toString());
            for (final String suffix : List.of("-quick.txt", "-quick.json", "-quick-machine.json", "-quick.png")) {
                assertTrue(names.stream().anyMatch(name -> name.endsWith(suffix)), suffix + " in " + names);
            }
            final Path plot = results.resolve(names.stream().filter(name -> name.endsWith(".png")).findFirst().orElseThrow());
            final byte[] png = Files.readAllBytes(plot);
            assertTrue(png.length > 1000 && png[1] == 'P' && png[2] == 'N' && png[3] == 'G', plot.toString());
        }
    }

    private static Options options(final String... args) throws Exception {
        final JmhLauncher.Arguments arguments = JmhLauncher.Arguments.parse(args);
        final CommandLineOptions jmhOptions = new CommandLineOptions(arguments.jmhArgs.toArray(new String[0]));
        return JmhLauncher.runOptions(jmhOptions, arguments, FLAGS, JSON);
    }
}
