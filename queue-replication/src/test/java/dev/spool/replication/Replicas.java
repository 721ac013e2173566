package dev.spool.replication;

import dev.spool.queue.Messages;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import net.openhft.chronicle.bytes.Bytes;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/** Messages that check themselves, and the comparison of a replica with its primary. */
final class Replicas {
    /** The shared secret of the tests' sinks, sources and gateways: secure is the default. */
    static final byte[] SECRET = "the replication tests' secret, 41 bytes".getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private Replicas() {
    }

    static SpoolQueue open(final Path directory) {
        return SpoolQueue.builder(directory).chunkLength(1 << 20).openOrCreate();
    }

    /** @return message {@code sequence}: its length varies from 8 bytes to past a 4 KiB frame; its bytes encode it. */
    static byte[] message(final long sequence) {
        final int length = sequence % 97 == 5 ? 6000 : Long.BYTES + (int) (sequence * 31 % 300);
        final byte[] bytes = new byte[length];
        for (int i = Long.BYTES; i < length; i++) {
            bytes[i] = (byte) (sequence * 7 + i);
        }
        for (int i = 0; i < Long.BYTES; i++) {
            bytes[i] = (byte) (sequence >>> (8 * i));
        }
        return bytes;
    }

    /** @return the sequence a message of {@link #message(long)} encodes, checking its bytes. */
    static long sequenceOf(final byte[] bytes) {
        long sequence = 0;
        for (int i = 0; i < Long.BYTES; i++) {
            sequence |= (bytes[i] & 0xFFL) << (8 * i);
        }
        if (!Arrays.equals(bytes, message(sequence))) {
            throw new AssertionError("message of " + bytes.length + " bytes is not message " + sequence);
        }
        return sequence;
    }

    static void append(final ExcerptAppender appender, final long from, final long to) {
        for (long sequence = from; sequence < to; sequence++) {
            appender.append(message(sequence));
        }
    }

    static void await(final BooleanSupplier condition, final String what) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out waiting until " + what);
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /**
     * Asserts that two queues hold the same excerpts at the same indices, byte for byte, as far as the shorter goes.
     *
     * @return the number of excerpts they share.
     */
    static long assertSamePrefix(final SpoolQueue one, final SpoolQueue other, final String when) {
        final Bytes<?> expected = Bytes.allocateElasticOnHeap();
        final Bytes<?> actual = Bytes.allocateElasticOnHeap();
        long count = 0;
        try (ExcerptTailer first = one.createTailer(); ExcerptTailer second = other.createTailer()) {
            while (true) {
                expected.clear();
                actual.clear();
                final long index = first.read(expected);
                final long otherIndex = second.read(actual);
                if (index < 0 || otherIndex < 0) {
                    return count;
                }
                assertEquals(index, otherIndex, when + ": index of excerpt " + count);
                assertArrayEquals(expected.toByteArray(), actual.toByteArray(), when + ": excerpt at index " + index);
                count++;
            }
        } finally {
            expected.releaseLast();
            actual.releaseLast();
        }
    }

    /**
     * Asserts that the replica holds exactly the primary's excerpts at the same indices, byte for byte.
     *
     * @return the number of excerpts.
     */
    static long assertIdentical(final SpoolQueue primary, final SpoolQueue replica) {
        final Bytes<?> expected = Bytes.allocateElasticOnHeap();
        final Bytes<?> actual = Bytes.allocateElasticOnHeap();
        long count = 0;
        try (ExcerptTailer source = primary.createTailer(); ExcerptTailer copy = replica.createTailer()) {
            while (true) {
                expected.clear();
                actual.clear();
                final long index = source.read(expected);
                final long copyIndex = copy.read(actual);
                assertEquals(index, copyIndex, "index of excerpt " + count);
                if (index < 0) {
                    return count;
                }
                assertArrayEquals(expected.toByteArray(), actual.toByteArray(), "excerpt at index " + index);
                count++;
            }
        } finally {
            expected.releaseLast();
            actual.releaseLast();
        }
    }

    /** Waits until the sink holds the primary's last index and the primary has its acknowledgement. */
    static void awaitReplicated(final SpoolQueue primary, final ReplicationSink sink) {
        final long last = primary.lastIndex();
        await(() -> sink.lastIndex() == last && Failover.lastAckedIndex(primary) == last, "index " + last + " is replicated");
    }

    /** @return the highest cycle file of a queue's directory. */
    static Path lastCycleFile(final Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            final List<Path> cycles = files.filter(f -> f.toString().endsWith(".cycle")).sorted().toList();
            return cycles.get(cycles.size() - 1);
        }
    }

    /** Flips a payload bit of the {@code n}th data excerpt of {@code file}, a checksummed queue's cycle file. */
    static void damage(final Path file, final int n) throws IOException {
        final ByteBuffer bytes = ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        long position = CycleDescriptor.DATA_OFFSET;
        int sequence = 0;
        while (true) {
            final int header = bytes.getInt((int) position);
            if (ExcerptDescriptor.isData(header) && sequence++ == n) {
                try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                    final long at = position + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET + 1;
                    raf.seek(at);
                    final int value = raf.read();
                    raf.seek(at);
                    raf.write(value ^ 0x40);
                }
                return;
            }
            position += ExcerptDescriptor.alignedLength(ExcerptDescriptor.length(header));
        }
    }
}
