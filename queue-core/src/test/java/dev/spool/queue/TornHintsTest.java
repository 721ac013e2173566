package dev.spool.queue;

import dev.spool.queue.format.CycleDescriptor;

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
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A writer killed between its two hint stores leaves the new write position with the old sequence (found by
 * queue-ringbuffer's drainer kill loop): the next writer must not give its excerpt the index of the last one.
 */
class TornHintsTest extends SpoolTestBase {
    /** Puts the cycle file's sequence hint one behind its position hint, as a writer killed between the two leaves it. */
    private static void tearWriteSequence(final Path dir) throws IOException {
        final Path file;
        try (Stream<Path> files = Files.list(dir)) {
            file = files.filter(path -> path.toString().endsWith(RollCycle.FILE_SUFFIX)).findFirst().orElseThrow();
        }
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            final ByteBuffer sequence = ByteBuffer.allocate(Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
            channel.read(sequence, CycleDescriptor.WRITE_SEQUENCE_OFFSET);
            channel.write(sequence.putLong(0, sequence.getLong(0) - 1).clear(), CycleDescriptor.WRITE_SEQUENCE_OFFSET);
        }
    }

    @Test
    void shouldSyncTheRealTailAfterTakingTheLockOverFromAWriterThatDiedBetweenItsHintStores() throws Exception {
        expectWarning("took over the write lock");
        expectWarning("torn write hints");
        final Path dir = tempDir.resolve("q");
        try (SpoolQueue queue = ChildMains.open(dir.toString()); ExcerptAppender appender = queue.createAppender()) {
            // attached to the cycle before the dead writer: only the takeover can tell it the hints are torn
            appender.append(new byte[]{1});
            final long lastOfDeadWriter;
            try (ChildJvm child = ChildJvm.start(ChildMains.ClaimHolder.class, tempDir.resolve("child.stderr"), dir.toString())) {
                lastOfDeadWriter = Long.parseLong(child.awaitLine("CLAIMED", 60, TimeUnit.SECONDS).split(" ")[1]);
                child.kill();
            }
            // the dead writer holds the lock and left the new position with the old sequence
            tearWriteSequence(dir);
            assertEquals(lastOfDeadWriter, appender.sync(), "sync reports the dead writer's last excerpt, not the one before");
            assertEquals(lastOfDeadWriter + 1, appender.append(new byte[]{2}), "the next index, not the last one again");
            assertEquals(1, queue.metrics().getWriteLockTakeovers(), "the takeover is counted");
            assertEquals(1, queue.metrics().getTornHintRepairs(), "the repair is counted");
        }
    }

    @Test
    void shouldNotReuseTheLastIndexAfterAWriterDiedBetweenItsHintStores() throws IOException {
        expectWarning("torn write hints");
        final Path dir = tempDir.resolve("q");
        final long last;
        try (SpoolQueue queue = SpoolQueue.builder(dir).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < 100; i++) {
                appender.append(new byte[]{(byte) i});
            }
            last = appender.lastIndexAppended();
        }
        tearWriteSequence(dir);
        try (SpoolQueue queue = SpoolQueue.builder(dir).chunkLength(1 << 20).openOrCreate();
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
