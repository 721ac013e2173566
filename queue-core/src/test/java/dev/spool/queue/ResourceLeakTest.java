package dev.spool.queue;

import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Opening and closing queues, appenders and tailers leaves no mapping ({@code /proc/self/maps}) and no file
 * descriptor ({@code /proc/self/fd}) behind: a long-running process would otherwise reach {@code vm.max_map_count},
 * keep deleted queues' disk space and make unmounts fail. A short form runs in every build (in the slow execution),
 * the full counts with -Pslow.
 */
class ResourceLeakTest extends SpoolTestBase {

    /** 500 queues and 5,000 appenders and tailers in every build; 10,000 and 100,000 with -Pslow. */
    @Test
    @Tag("slow")
    void shouldLeaveNoMappingOrDescriptorAfterThousandsOfQueuesAppendersAndTailers() throws IOException {
        openAndClose(Soak.count(500, 10_000), Soak.count(5_000, 100_000));
    }

    private void openAndClose(final int queues, final int appendersAndTailers) throws IOException {
        final Path directory = tempDir.resolve("q");
        final byte[] payload = new byte[16];
        try (SpoolQueue queue = SpoolQueue.builder(directory).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            appender.append(payload);
        }
        BackgroundResourceReleaser.releasePendingResources();
        final long mapsBefore = mappingsOf(directory);
        final long descriptorsBefore = descriptors();
        assertEquals(0, mapsBefore, "nothing of a closed queue stays mapped");

        for (int i = 0; i < queues; i++) {
            try (SpoolQueue queue = SpoolQueue.builder(directory).openOrCreate();
                 ExcerptAppender appender = queue.createAppender();
                 ExcerptTailer tailer = queue.createTailer()) {
                appender.append(payload);
                assertTrue(tailer.read((bytes, offset, length, index) -> { }));
            }
        }
        try (SpoolQueue queue = SpoolQueue.builder(directory).openOrCreate()) {
            final long mapsOpen = mappingsOf(directory);
            for (int i = 0; i < appendersAndTailers; i++) {
                try (ExcerptAppender appender = queue.createAppender();
                     ExcerptTailer tailer = queue.createTailer()) {
                    if (i % 100 == 0) {
                        appender.append(payload);
                        assertTrue(tailer.read((bytes, offset, length, index) -> { }));
                    }
                }
            }
            BackgroundResourceReleaser.releasePendingResources();
            assertTrue(mappingsOf(directory) <= mapsOpen, "appenders and tailers of an open queue leave no mapping: "
                    + mappingsOf(directory) + " > " + mapsOpen);
        }
        BackgroundResourceReleaser.releasePendingResources();
        assertEquals(mapsBefore, mappingsOf(directory), "mappings of " + directory + " after " + queues + " queues");
        assertEquals(descriptorsBefore, descriptors(), "file descriptors after " + queues + " queues and "
                + appendersAndTailers + " appenders and tailers");
    }

    private static long mappingsOf(final Path directory) throws IOException {
        final String prefix = directory.toAbsolutePath().normalize().toString();
        try (Stream<String> lines = Files.lines(Path.of("/proc/self/maps"))) {
            return lines.filter(line -> line.contains(prefix)).count();
        }
    }

    private static long descriptors() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.count();
        }
    }
}
