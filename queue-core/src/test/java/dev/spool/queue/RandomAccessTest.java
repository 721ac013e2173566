package dev.spool.queue;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.*;

class RandomAccessTest extends SpoolTestBase {
    private static final long START = 1_700_000_000_000L;
    private static final int CYCLES = 3;
    /**
     * Excerpts per cycle: two index blocks' worth, so that lookups cross blocks and cycles. At full length a
     * million with the default blocks (8192 entries); in every build a tenth of it with blocks of 1024 entries,
     * the same shape at a tenth of the time.
     */
    private static final int PER_CYCLE = Soak.count(100_000, 1_000_000);
    private static final int INDEX_BLOCK_ENTRIES = Soak.count(1024, 8192);
    private static final int PROBES = Soak.count(20_000, 200_000);

    @Test
    @Tag("slow")
    void shouldFindEveryIndexOverMillionsOfExcerptsAcrossCycles() {
        final ManualClock clock = new ManualClock(START);
        final long[] indices = new long[CYCLES * PER_CYCLE];
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.SECONDLY).chunkLength(1 << 20)
                .indexBlockEntries(INDEX_BLOCK_ENTRIES).epochClock(clock).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final byte[] payload = new byte[12];
            for (int n = 0; n < indices.length; n++) {
                if (n > 0 && n % PER_CYCLE == 0) {
                    clock.advance(1_000);
                }
                writeLong(payload, n);
                // vary the length so positions are not a simple multiple of the sequence
                indices[n] = appender.append(payload, 0, 8 + n % 5);
            }
            assertEquals(CYCLES, queue.cycles().length);

            final long[] seen = new long[2];
            final ExcerptHandler check = (bytes, offset, length, index) -> {
                seen[0] = bytes.readLong(offset);
                seen[1] = index;
            };
            final SplittableRandom random = new SplittableRandom(42);
            for (int probe = 0; probe < PROBES; probe++) {
                final int n = random.nextInt(indices.length);
                assertTrue(tailer.moveToIndex(indices[n]), "index of excerpt " + n);
                assertEquals(indices[n], tailer.index());
                assertTrue(tailer.read(check));
                assertEquals(n, seen[0]);
                assertEquals(indices[n], seen[1]);
            }
            final long afterLast = indices[indices.length - 1] + 1;
            assertFalse(tailer.moveToIndex(afterLast), "no excerpt there yet");
            assertFalse(tailer.moveToIndex(RollCycle.SECONDLY.toIndex(RollCycle.SECONDLY.toCycle(indices[0]) + 100, 0)));

            // every excerpt, backward, across the cycle boundaries
            tailer.direction(Direction.BACKWARD).toEnd();
            for (int n = indices.length - 1; n >= 0; n--) {
                assertTrue(tailer.read(check), "backward read " + n);
                assertEquals(n, seen[0]);
                assertEquals(indices[n], seen[1]);
            }
            assertFalse(tailer.read(check));

            // and forward from the start
            tailer.direction(Direction.FORWARD).toStart();
            final Bytes<?> into = Bytes.allocateElasticDirect(64);
            try {
                for (int n = 0; n < indices.length; n++) {
                    into.clear();
                    assertEquals(indices[n], tailer.read(into));
                    assertEquals(n, into.readLong());
                }
                assertEquals(-1, tailer.read(into));
            } finally {
                into.releaseLast();
            }
            assertEquals(indices[0], queue.firstIndex());
            assertEquals(indices[indices.length - 1], queue.lastIndex());
        }
    }

    @Test
    void shouldSwitchDirectionAroundTheSameGap() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final long[] indices = new long[10];
            for (int i = 0; i < indices.length; i++) {
                indices[i] = appender.append(new byte[]{(byte) i});
            }
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            assertEquals(indices[0], tailer.read(into));
            assertEquals(indices[1], tailer.read(into));
            tailer.direction(Direction.BACKWARD);
            assertEquals(indices[1], tailer.read(into), "backward reads the excerpt before the gap");
            assertEquals(indices[0], tailer.read(into));
            assertEquals(-1, tailer.read(into));
            tailer.direction(Direction.FORWARD);
            assertEquals(indices[0], tailer.read(into));
            tailer.toEnd();
            assertEquals(-1, tailer.read(into));
            tailer.direction(Direction.BACKWARD);
            assertEquals(indices[9], tailer.read(into));
        }
    }

    private static void writeLong(final byte[] target, final long value) {
        for (int i = 0; i < Long.BYTES; i++) {
            target[i] = (byte) (value >>> (8 * i));
        }
    }
}
