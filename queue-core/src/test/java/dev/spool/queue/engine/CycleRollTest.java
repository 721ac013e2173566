package dev.spool.queue.engine;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.ExcerptDescriptor;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;
import static org.junit.jupiter.api.Assertions.*;

class CycleRollTest extends SpoolTestBase {
    /** 2024-01-01T00:00Z. */
    private static final long START_MILLIS = 1_704_067_200_000L;
    private static final long HOUR = 3_600_000L;

    @Test
    void shouldPositionToEndInTheHighestCycleWhenAFileOfALaterCycleAlreadyExists() {
        final AtomicLong now = new AtomicLong(START_MILLIS);
        final long firstCycle = RollCycle.HOURLY.cycle(START_MILLIS, 0);
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20)
                .rollCycle(RollCycle.HOURLY).epochClock(now::get).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            appender.append("before".getBytes(StandardCharsets.UTF_8));
            // the next cycle's file made ahead of its roll (a pretoucher does this), not yet the highest cycle
            Stores.of(queue).cycleFiles().release(Stores.of(queue).cycleFiles().create(firstCycle + 1, SpoolQueueBuilder.DEFAULT_INDEX_SPACING,
                    SpoolQueueBuilder.DEFAULT_INDEX_BLOCK_ENTRIES, 0));
            tailer.toEnd();
            final long after = appender.append("after".getBytes(StandardCharsets.UTF_8));
            assertEquals(firstCycle, queue.rollCycle().toCycle(after));
            assertEquals(after, tailer.index(), "toEnd stays in the highest cycle, the one being written");
            assertEquals(after, tailer.read(Bytes.allocateElasticOnHeap()), "an excerpt appended after toEnd is read");
        }
    }

    @Test
    void shouldReadCycleWhoseCreatorDiedBeforeRecordingItAsTheHighest() {
        final AtomicLong now = new AtomicLong(START_MILLIS);
        final SpoolQueueBuilder builder = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20)
                .rollCycle(RollCycle.HOURLY).epochClock(now::get);
        final long firstCycle = RollCycle.HOURLY.cycle(START_MILLIS, 0);
        try (SpoolQueue queue = builder.openOrCreate(); ExcerptAppender appender = queue.createAppender()) {
            appender.append("before".getBytes(StandardCharsets.UTF_8));
        }
        try (SpoolQueue queue = builder.openOrCreate()) {
            // a rolling writer ends the old cycle, creates the new file, then records it as the highest cycle:
            // this one dies before the last step
            final CycleFile first = Stores.of(queue).cycleFiles().acquire(firstCycle);
            final MappedCursor cursor = new MappedCursor("test");
            cursor.attach(first);
            MEMORY.writeOrderedInt(cursor.address(first.writePosition()), ExcerptDescriptor.END_OF_CYCLE);
            cursor.detach();
            Stores.of(queue).cycleFiles().release(first);
            Stores.of(queue).cycleFiles().release(Stores.of(queue).cycleFiles().create(firstCycle + 1, SpoolQueueBuilder.DEFAULT_INDEX_SPACING,
                    SpoolQueueBuilder.DEFAULT_INDEX_BLOCK_ENTRIES, 0));
        }
        now.addAndGet(HOUR);
        try (SpoolQueue queue = builder.openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final long after = appender.append("after".getBytes(StandardCharsets.UTF_8));
            assertEquals(firstCycle + 1, queue.rollCycle().toCycle(after));
            final List<String> read = new ArrayList<>();
            while (tailer.read((bytes, offset, length, index) -> {
                final byte[] payload = new byte[length];
                bytes.read(offset, payload, 0, length);
                read.add(new String(payload, StandardCharsets.UTF_8));
            })) {
                assertTrue(read.size() < 10);
            }
            assertEquals(List.of("before", "after"), read, "the excerpt appended to the new cycle reaches tailers");
        }
    }
}
