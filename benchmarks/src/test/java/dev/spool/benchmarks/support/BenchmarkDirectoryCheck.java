package dev.spool.benchmarks.support;

import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Points {@link BenchmarkDirectory} at a fresh temporary directory for each test and fails the test if a
 * benchmark or variant left a directory behind in it: what the benchmarks create, they must delete.
 */
public final class BenchmarkDirectoryCheck implements BeforeEachCallback, AfterEachCallback {
    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(BenchmarkDirectoryCheck.class);

    @Override
    public void beforeEach(final ExtensionContext context) throws IOException {
        final Path base = Files.createTempDirectory("spool-bench-test-");
        context.getStore(NAMESPACE).put("base", base);
        System.setProperty(BenchmarkDirectory.BASE_PROPERTY, base.toString());
    }

    @Override
    public void afterEach(final ExtensionContext context) throws IOException {
        System.clearProperty(BenchmarkDirectory.BASE_PROPERTY);
        final Path base = context.getStore(NAMESPACE).remove("base", Path.class);
        final List<Path> left;
        try (Stream<Path> files = Files.list(base)) {
            left = files.toList();
        }
        try (Stream<Path> files = Files.walk(base)) {
            for (final Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(file);
            }
        }
        assertEquals(List.of(), left, "benchmark directories left in " + base);
    }
}
