package dev.spool.failover;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import net.openhft.chronicle.bytes.Bytes;

import java.nio.file.Path;
import java.util.BitSet;
import java.util.Iterator;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** What the fault loop checks in the nodes' queues, each opened read-only. */
final class QueueChecks {
    private QueueChecks() {
    }

    /** Every acknowledged commit is in the queue at its index, with its bytes. */
    static void assertCommittedOn(final Path directory, final TreeMap<Long, byte[]> committed,
            final String when) {
        final Bytes<?> bytes = Bytes.allocateElasticOnHeap();
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open();
             ExcerptTailer tailer = queue.createTailer()) {
            final Iterator<Map.Entry<Long, byte[]>> expected = committed.entrySet().iterator();
            Map.Entry<Long, byte[]> next = expected.hasNext() ? expected.next() : null;
            while (next != null) {
                bytes.clear();
                final long index = tailer.read(bytes);
                if (index < 0 || index > next.getKey()) {
                    fail(when + ": index 0x" + Long.toHexString(next.getKey()) + " was acknowledged to the client"
                            + " at ACKED_BY_QUORUM ('" + FaultPublisher.text(next.getValue()) + "') but "
                            + directory + (index < 0 ? " ends before it" : " goes on at 0x"
                            + Long.toHexString(index)));
                }
                if (index == next.getKey()) {
                    assertArrayEquals(next.getValue(), bytes.toByteArray(), when + ": index 0x"
                            + Long.toHexString(index) + " of " + directory);
                    next = expected.hasNext() ? expected.next() : null;
                }
            }
        } finally {
            bytes.releaseLast();
        }
    }

    /** Two queues hold the same excerpts at the same indices, byte for byte. */
    static void assertIdentical(final Path one, final Path other, final String when) {
        final Bytes<?> bytes = Bytes.allocateElasticOnHeap();
        final Bytes<?> otherBytes = Bytes.allocateElasticOnHeap();
        try (SpoolQueue queue = SpoolQueue.builder(one).readOnly().open();
             SpoolQueue otherQueue = SpoolQueue.builder(other).readOnly().open();
             ExcerptTailer tailer = queue.createTailer();
             ExcerptTailer otherTailer = otherQueue.createTailer()) {
            while (true) {
                bytes.clear();
                otherBytes.clear();
                final long index = tailer.read(bytes);
                final long otherIndex = otherTailer.read(otherBytes);
                assertEquals(index, otherIndex, when + ": the next index");
                if (index < 0) {
                    return;
                }
                assertArrayEquals(bytes.toByteArray(), otherBytes.toByteArray(), when + ": index 0x"
                        + Long.toHexString(index));
            }
        } finally {
            bytes.releaseLast();
            otherBytes.releaseLast();
        }
    }

    /** @return how many messages the queue holds, after checking that no message is there twice. */
    static long assertEveryMessageOnce(final Path directory, final String when) {
        final BitSet seen = new BitSet();
        final Bytes<?> bytes = Bytes.allocateElasticOnHeap();
        long messages = 0;
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open();
             ExcerptTailer tailer = queue.createTailer()) {
            while (true) {
                bytes.clear();
                final long index = tailer.read(bytes);
                if (index < 0) {
                    return messages;
                }
                final int number = (int) FaultPublisher.numberOf(bytes.toByteArray());
                assertTrue(!seen.get(number), when + ": message " + number + " is written twice in " + directory
                        + ", again at 0x" + Long.toHexString(index));
                seen.set(number);
                messages++;
            }
        } finally {
            bytes.releaseLast();
        }
    }

    /** @return the queue's last index, or -2 if it cannot be read now (a node setting its directory aside). */
    static long lastIndex(final Path directory) {
        if (!SpoolQueue.exists(directory)) {
            return -2;
        }
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open()) {
            return queue.lastIndex();
        } catch (RuntimeException e) {
            return -2;
        }
    }
}
