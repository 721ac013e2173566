package dev.spool.benchmarks.support;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;

import java.nio.file.Path;

/**
 * Payloads and read sets shared by the benchmarks, so that every queue writes the same bytes and every read
 * benchmark walks the same number of excerpts.
 */
public final class Payloads {
    /** Bytes of excerpt header in Spool's format, and in the floor's. */
    public static final int HEADER_LENGTH = Integer.BYTES;
    /** Spool starts every excerpt on this boundary; the floor does the same so both touch as many pages. */
    static final int ALIGNMENT = 8;
    /** Mapping unit of every file the benchmarks write: large, so mapping a new chunk is rare. */
    public static final long CHUNK_LENGTH = 64L << 20;
    /** Bytes past a chunk that its mapping also covers: an excerpt that starts in a chunk ends in its mapping. */
    public static final long OVERLAP_LENGTH = 16L << 20;
    /**
     * Bytes of excerpts the read benchmarks pre-fill and then read round and round: far more than the CPU's
     * caches, so reads come from memory, yet inside one chunk, so wrapping around never maps a chunk again.
     */
    static final long READ_SET_LENGTH = 32L << 20;

    private Payloads() {
    }

    /**
     * @param length payload length in bytes.
     * @return a payload with no zero byte, so a read that sees zeros has read the wrong place.
     */
    public static byte[] create(final int length) {
        final byte[] payload = new byte[length];
        for (int i = 0; i < length; i++) {
            payload[i] = (byte) (1 + i % 255);
        }
        return payload;
    }

    /**
     * Writes the start time into the message and appends it {@code batchSize} times back to back: one JLBH send of
     * a batch variant, every message carrying the batch's due time.
     *
     * @param appender    the queue's appender.
     * @param message     the message, its first eight bytes overwritten with the start time.
     * @param startTimeNs the batch's due time, by {@code System.nanoTime()}.
     * @param batchSize   messages to append.
     */
    public static void appendBatch(final ExcerptAppender appender, final Bytes<?> message, final long startTimeNs,
                                   final int batchSize) {
        message.writeLong(0, startTimeNs);
        for (int i = 0; i < batchSize; i++) {
            appender.append(message);
        }
    }

    /**
     * @param length payload length in bytes.
     * @return direct bytes holding the payload of {@code length}, for variants that append a {@code Bytes}.
     */
    public static Bytes<?> directMessage(final int length) {
        final Bytes<?> message = Bytes.allocateDirect(length);
        message.write(create(length));
        return message;
    }

    /**
     * @param directory the queue's directory.
     * @return a Spool queue's builder with the settings every benchmark uses: daily cycles, {@link #CHUNK_LENGTH}
     * chunks.
     */
    public static SpoolQueueBuilder spoolQueue(final Path directory) {
        return SpoolQueue.builder(directory).rollCycle(RollCycle.DAILY).chunkLength(CHUNK_LENGTH);
    }

    /**
     * @param directory the queue's directory.
     * @return Chronicle Queue's builder with the same settings as {@link #spoolQueue(Path)}: binary, daily cycles,
     * {@link #CHUNK_LENGTH} blocks.
     */
    public static SingleChronicleQueueBuilder chronicleQueue(final Path directory) {
        return SingleChronicleQueueBuilder.binary(directory).rollCycle(RollCycles.FAST_DAILY).blockSize(CHUNK_LENGTH);
    }

    /**
     * @param length payload length in bytes.
     * @return bytes from one excerpt's header to the next one's.
     */
    public static int alignedLength(final int length) {
        return (HEADER_LENGTH + length + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /**
     * @param length payload length in bytes.
     * @return how many excerpts of that length the read benchmarks pre-fill.
     */
    public static int readSetCount(final int length) {
        return (int) (READ_SET_LENGTH / alignedLength(length));
    }
}
