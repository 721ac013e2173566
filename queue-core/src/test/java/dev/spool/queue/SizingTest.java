package dev.spool.queue;

import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.internal.PublisherAppender;
import dev.spool.queue.internal.QueueInternals;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * The disk-sizing formula of docs/sizing.md, held against what a queue really writes: a cycle's used length (its
 * write position) after {@code n} excerpts is the header and root index, plus {@code align8(4 + prefix + length)}
 * per excerpt, plus one index block of {@code align8(8 + entries * (8 or 16))} bytes per
 * {@code spacing * entries} excerpts begun.
 */
class SizingTest extends SpoolTestBase {

    @ParameterizedTest(name = "{0} excerpts of {1} bytes, checksums={2}, indexTimes={3}, publisherIds={4}")
    @CsvSource({
            "1000, 100, false, false, false",
            "1000, 100, true, true, false",
            "5000, 100, true, true, false",
            "3000, 37, false, false, true",
            "3000, 1, true, false, true",
            "2048, 8, false, true, false"})
    void shouldUseTheBytesTheSizingGuideSays(final int excerpts, final int length, final boolean checksums,
                                             final boolean indexTimes, final boolean publisherIds) throws IOException {
        final int spacing = 16;
        final int entries = 64;
        final Path directory = tempDir.resolve("q");
        try (SpoolQueue queue = SpoolQueue.builder(directory).chunkLength(1 << 20).indexSpacing(spacing)
                .indexBlockEntries(entries).checksums(checksums).indexTimes(indexTimes).publisherIds(publisherIds)
                .create()) {
            final BytesStore<?, ?> payload = BytesStore.wrap(new byte[length]);
            if (publisherIds) {
                try (PublisherAppender appender = queue.unwrap(QueueInternals.class).createPublisherAppender()) {
                    for (int i = 1; i <= excerpts; i++) {
                        appender.append(7, i, payload, payload.start(), length);
                    }
                }
            } else {
                try (ExcerptAppender appender = queue.createAppender()) {
                    for (int i = 0; i < excerpts; i++) {
                        appender.append(payload, payload.start(), length);
                    }
                }
            }
        }
        final int prefix = publisherIds ? 20 : checksums ? 4 : 0;
        final long perExcerpt = align8(4 + prefix + length);
        final long blocks = (excerpts + (long) spacing * entries - 1) / ((long) spacing * entries);
        final long perBlock = align8(8 + (long) entries * (indexTimes ? 16 : 8));
        final long expected = CycleDescriptor.DATA_OFFSET + excerpts * perExcerpt + blocks * perBlock;
        assertEquals(expected, usedLength(directory), "the cycle's used length against the sizing formula");
    }

    private static long align8(final long length) {
        return (length + 7) & ~7L;
    }

    private static long usedLength(final Path directory) throws IOException {
        try (var files = Files.list(directory);
             FileChannel channel = FileChannel.open(files.filter(f -> f.toString().endsWith(".cycle"))
                     .findFirst().orElseThrow())) {
            final ByteBuffer position = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(position, CycleDescriptor.WRITE_POSITION_OFFSET);
            return position.getLong(0);
        }
    }
}
