package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.BenchmarkDirectoryCheck;
import dev.spool.benchmarks.support.Payloads;
import dev.spool.queue.RollCycle;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.ExcerptTailer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;


import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Runs each benchmark's state and operation without JMH, a few hundred thousand times: what is measured must
 * work, read what was written, wrap around, and leave no file behind.
 */
@ExtendWith(BenchmarkDirectoryCheck.class)
class BenchmarkLogicTest {
    @Test
    void floorShouldAppendAcrossChunksAndReadRoundTheReadSet() {
        final FloorBenchmark.AppendState append = new FloorBenchmark.AppendState();
        append.payloadLength = 256;
        append.createPayload();
        append.createFile();
        for (int i = 0; i < 1000; i++) {
            append.append();
        }
        append.deleteFile();

        // past the first chunk's safe limit, the file maps the next chunk, for the writer and the reader
        final BenchmarkDirectory directory = BenchmarkDirectory.create("floor-test-");
        final FloorBenchmark.FloorFile file = new FloorBenchmark.FloorFile(directory.path().resolve("floor.data"));
        final byte[] payload = Payloads.create(256);
        long position = 0;
        int written = 0;
        while (position < Payloads.CHUNK_LENGTH) {
            position = file.append(payload);
            written++;
        }
        file.rewind();
        final byte[] copy = new byte[256];
        for (int i = 0; i < written; i++) {
            assertEquals(256, file.read(copy));
            assertArrayEquals(payload, copy);
        }
        assertEquals(-1, file.read(copy));
        file.close();
        directory.delete();

        final FloorBenchmark.ReadState read = new FloorBenchmark.ReadState();
        read.payloadLength = 32;
        read.fillFile();
        for (int i = Payloads.readSetCount(32) + 10; i > 0; i--) {
            assertEquals(32, read.read());
        }
        assertArrayEquals(Payloads.create(32), read.lastPayload());
        read.deleteFile();
    }

    @Test
    void spoolShouldAppendAndReadChecksummedExcerptsOf4KiB() {
        final SpoolBenchmark.AppendState append = new SpoolBenchmark.AppendState();
        append.payloadLength = 4096;
        append.checksums = true;
        append.createPayload();
        append.createQueue();
        assertTrue(append.queue().checksums());
        assertEquals(append.append() + 1, append.claimCommit());
        append.deleteQueue();

        final SpoolBenchmark.ReadState read = new SpoolBenchmark.ReadState();
        read.payloadLength = 4096;
        read.checksums = true;
        read.fillQueue();
        final long firstIndex = read.read();
        for (int i = Payloads.readSetCount(4096); i > 0; i--) {
            read.read();
        }
        assertEquals(firstIndex + 1, read.read(), "past the last excerpt the tailer starts again");
        assertArrayEquals(Payloads.create(4096), read.lastPayload());
        read.deleteQueue();
    }

    @Test
    void spoolShouldAppendBothWaysAndReadRoundTheReadSet() {
        final SpoolBenchmark.AppendState append = new SpoolBenchmark.AppendState();
        append.payloadLength = 32;
        append.createPayload();
        append.createQueue();
        final long first = append.append();
        final long second = append.claimCommit();
        assertEquals(first + 1, second);
        assertEquals(first, append.queue().firstIndex());
        append.deleteQueue();

        final SpoolBenchmark.ReadState read = new SpoolBenchmark.ReadState();
        read.payloadLength = 256;
        read.fillQueue();
        final int count = Payloads.readSetCount(256);
        final long firstIndex = read.read();
        for (int i = 1; i < count; i++) {
            read.read();
        }
        assertEquals(firstIndex, read.read(), "past the last excerpt the tailer starts again");
        assertArrayEquals(Payloads.create(256), read.lastPayload());
        for (int i = count + 10; i > 0; i--) {
            assertTrue(read.readBytes() >= firstIndex);
        }
        assertEquals(256, read.lastBytes().readRemaining());
        for (int i = 0; i < 10_000; i++) {
            read.moveToRandomIndex();
        }
        read.deleteQueue();
    }

    @Test
    void chronicleShouldAppendBothWaysAndReadRoundTheReadSet() {
        final ChronicleBenchmark.AppendState append = new ChronicleBenchmark.AppendState();
        append.payloadLength = 32;
        append.createPayload();
        append.createQueue();
        append.writeBytes();
        append.writingDocument();
        append.writeBytes();
        try (ExcerptTailer tailer = append.queue().createTailer()) {
            int read = 0;
            while (tailer.readBytes(Bytes.elasticHeapByteBuffer())) {
                read++;
            }
            assertEquals(3, read);
        }
        append.deleteQueue();
        append.releasePayload();

        final ChronicleBenchmark.ReadState read = new ChronicleBenchmark.ReadState();
        read.payloadLength = 256;
        read.fillQueue();
        read.adoptThread();
        final int count = Payloads.readSetCount(256);
        for (int i = count + 10; i > 0; i--) {
            assertEquals(256, read.readBytes());
        }
        final byte[] payload = Payloads.create(256);
        final byte[] bytes = new byte[256];
        read.lastBytes().read(bytes);
        assertArrayEquals(payload, bytes);
        for (int i = count + 10; i > 0; i--) {
            read.readingDocument();
        }
        assertArrayEquals(payload, read.lastPayload());
        for (int i = 0; i < 10_000; i++) {
            read.moveToRandomIndex();
        }
        read.deleteQueue();
    }

    @Test
    void typedBenchmarkShouldReadBackEachOrderItWroteThreeWays() {
        final TypedBenchmark.TypedState typed = new TypedBenchmark.TypedState();
        final TypedBenchmark.HandState hand = new TypedBenchmark.HandState();
        final TypedBenchmark.ChronicleState chronicle = new TypedBenchmark.ChronicleState();
        typed.createQueue();
        // the hand-written state checks at creation that the generated reader reads its bytes as the order written
        hand.createQueue();
        chronicle.createQueue();
        for (long id = 1; id <= 100_000; id++) {
            assertEquals(id, typed.writeAndRead());
            assertEquals(id + 1, hand.writeAndRead(), "one order more: the check at creation");
            assertEquals(id, chronicle.writeAndRead());
        }
        typed.deleteQueue();
        hand.deleteQueue();
        chronicle.deleteQueue();
    }

    @Test
    void ringPartsShouldReadBackEachRecordAndExcerptItAppendedAndFindNothingMoreAtTheEnd() {
        final RingPartsBenchmark benchmark = new RingPartsBenchmark();
        final RingPartsBenchmark.RingTrip ring = new RingPartsBenchmark.RingTrip();
        ring.open();
        final RingPartsBenchmark.PlainTrip plain = new RingPartsBenchmark.PlainTrip();
        plain.open();
        // past the default ring's capacity, drained between batches as JMH does between invocations
        for (int batch = 1; batch <= 300; batch++) {
            ring.drainBetween();
            final long last = batch * (long) RingPartsBenchmark.BATCH - 1;
            assertEquals(last, RollCycle.DAILY.toSequence(benchmark.ringRoundTrip(ring)));
            assertTrue(ring.tailer().isReadingRing(), "the tailer reads the ring, not the queue");
            assertEquals(Payloads.create(RingPartsBenchmark.PAYLOAD_LENGTH)[0], (byte) ring.lastValue());
            assertEquals(last, RollCycle.DAILY.toSequence(benchmark.plainRoundTrip(plain)));
        }
        ring.close();
        plain.close();

        final RingPartsBenchmark.RingAtEnd ringAtEnd = new RingPartsBenchmark.RingAtEnd();
        ringAtEnd.open();
        assertFalse(benchmark.ringReadEmpty(ringAtEnd));
        ringAtEnd.close();
        final RingPartsBenchmark.PlainAtEnd plainAtEnd = new RingPartsBenchmark.PlainAtEnd();
        plainAtEnd.open();
        assertFalse(benchmark.plainReadEmpty(plainAtEnd));
        plainAtEnd.close();

        final RingPartsBenchmark.BareRing bare = new RingPartsBenchmark.BareRing();
        bare.open();
        long position = -1;
        for (int i = 0; i < 100_000; i++) {
            final long next = benchmark.partRingClaimCommit(bare);
            assertTrue(next > position, "positions only grow, the ring read empty when full");
            position = next;
        }
        bare.close();
        final RingPartsBenchmark.Words words = new RingPartsBenchmark.Words();
        words.allocate();
        assertEquals(0, benchmark.partClaimThreeCas(words));
        assertEquals(48, benchmark.partClaimOneCas(words));
        words.free();
    }
}
