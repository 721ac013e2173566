package dev.spool.queue;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A writer killed between its two hint stores leaves the new write position with the old sequence (found by
 * queue-ringbuffer's drainer kill loop): the next writer must not give its excerpt the index of the last one.
 */
class TornHintsTest extends SpoolTestBase {

    @Test
    void shouldNotReuseTheLastIndexAfterAWriterDiedBetweenItsHintStores() throws IOException {
        expectWarning("torn write hints");
        final Path dir = tempDir.resolve("q");
        final long last;
        try (SpoolQueue queue = SpoolQueue.builder(dir).chunkLength(1 << 20).build();
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < 100; i++) {
                appender.append(new byte[]{(byte) i});
            }
            last = appender.lastIndexAppended();
        }
        final Path file;
        try (Stream<Path> files = Files.list(dir)) {
            file = files.filter(path -> path.toString().endsWith(RollCycle.FILE_SUFFIX)).findFirst().orElseThrow();
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer sequence = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(sequence, CycleDescriptor.WRITE_SEQUENCE_OFFSET);
            channel.write(sequence.putLong(0, sequence.getLong(0) - 1).clear(), CycleDescriptor.WRITE_SEQUENCE_OFFSET);
        }
        try (SpoolQueue queue = SpoolQueue.builder(dir).chunkLength(1 << 20).build();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            assertEquals(last + 1, appender.append(new byte[]{100}), "the next index, not the last one again");
            final List<Long> indices = new ArrayList<>();
            while (tailer.read((bytes, offset, length, index) -> indices.add(index))) {
                // every excerpt
            }
            assertEquals(101, indices.size());
            assertEquals(last + 1, indices.get(100));
        }
    }
}
