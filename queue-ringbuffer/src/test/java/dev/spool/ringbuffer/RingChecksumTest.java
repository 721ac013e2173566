package dev.spool.ringbuffer;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * An async queue in front of a checksummed queue: the producer computes each payload's CRC32C at commit, ring
 * readers check it, and the drainer carries it into the queue, where it is checked before the excerpt is published.
 */
class RingChecksumTest extends SpoolTestBase {
    /** The async queue opens the queue itself: its tailers may read the ring. */
    private AsyncQueue openAsync() {
        return AsyncQueue.builder(SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).checksums(true))
                .ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16).build();
    }

    private static byte[] message(final int i) {
        final byte[] message = new byte[3 + i * 7 % 50];
        for (int b = 0; b < message.length; b++) {
            message[b] = (byte) (i + b * 13);
        }
        return message;
    }

    @Test
    void shouldCarryTheProducersChecksumThroughTheRingAndTheDrainIntoTheQueue() {
        try (AsyncQueue async = openAsync(); AsyncAppender appender = async.createAppender();
             AsyncTailer ringReader = async.createTailer()) {
            final SpoolQueue queue = async.queue();
            for (int i = 0; i < 10; i++) {
                appender.append(message(i));
            }
            final long claim = appender.claim(message(10).length);
            appender.buffer().write(appender.payloadOffset(claim), message(10));
            assertTrue(appender.commit(claim));
            for (int i = 0; i <= 10; i++) {
                final int expected = i;
                assertTrue(ringReader.read((bytes, offset, length, index) ->
                        assertArrayEquals(message(expected), copy(bytes, offset, length))));
            }
            assertEquals(11, ringReader.ringReads());
            assertEquals(11, async.createDrainer().doWork());
            try (ExcerptTailer tailer = queue.createTailer()) {
                final Bytes<?> into = Bytes.allocateElasticOnHeap();
                for (int i = 0; i <= 10; i++) {
                    into.clear();
                    assertTrue(tailer.read(into) >= 0);
                    assertArrayEquals(message(i), into.toByteArray());
                }
            }
        }
        assertTrue(verify(tempDir.resolve("q")).contains("OK"));
    }

    private static byte[] copy(final net.openhft.chronicle.bytes.BytesStore<?, ?> bytes, final long offset, final int length) {
        final byte[] copy = new byte[length];
        bytes.read(offset, copy, 0, length);
        return copy;
    }

    @Test
    void shouldRefuseToDrainOrReadARecordDamagedInTheRing() {
        try (AsyncQueue async = openAsync(); AsyncAppender appender = async.createAppender();
             AsyncTailer ringReader = async.createTailer()) {
            final SpoolQueue queue = async.queue();
            final long position = appender.append(message(5));
            final long damaged = appender.payloadOffset(position) + 2;
            final byte original = appender.buffer().readByte(damaged);
            appender.buffer().writeByte(damaged, (byte) (original ^ 0x01));
            final CRC32C crc = new CRC32C();
            crc.update(message(5));
            final String expected = String.format("0x%08x", (int) crc.getValue());
            final CorruptQueueException read = assertThrows(CorruptQueueException.class,
                    () -> ringReader.read((bytes, offset, length, index) -> { }));
            assertTrue(read.getMessage().contains("CRC32C mismatch in the ring record at ring position " + position)
                    && read.getMessage().contains("expected " + expected), read.getMessage());
            final Drainer drainer = async.createDrainer();
            final SpoolException drain = assertThrows(SpoolException.class, drainer::doWork);
            assertTrue(drain.getMessage().contains("ring " + async.ring().path())
                    && drain.getMessage().contains(expected), drain.getMessage());
            assertEquals(-1, queue.lastIndex(), "nothing of the damaged record reached the queue");
            appender.buffer().writeByte(damaged, original);
        }
    }
}
