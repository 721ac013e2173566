package dev.spool.ringbuffer;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.ChildJvm;
import dev.spool.queue.Messages;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A claim whose header was never written (its producer died or stalled between the tail swap and the header swap)
 * is unblocked after the blocked-claim timeout: turned into padding, without losing or duplicating a committed
 * record, and a producer that stalled there claims again.
 */
class BlockedClaimTest extends SpoolTestBase {
    private static final int CAPACITY = 4096;
    private static final Duration BLOCKED_TIMEOUT = Duration.ofMillis(50);

    private RingBuffer openRing() {
        return RingBuffer.open(tempDir.resolve("blocked.ring"), CAPACITY, Duration.ofMinutes(10), BLOCKED_TIMEOUT);
    }

    private static long append(final RingBuffer ring, final String text) {
        final byte[] payload = text.getBytes(StandardCharsets.ISO_8859_1);
        final long position = ring.tryClaim(payload.length);
        assertTrue(position >= 0, "room for " + text);
        ring.buffer().write(ring.payloadOffset(position), payload);
        assertTrue(ring.commit(position));
        return position;
    }

    /** Reads until {@code expected} records arrived, each read after the blocked-claim timeout had a chance. */
    private static List<String> readUntil(final RingBuffer ring, final int expected) throws InterruptedException {
        final List<String> read = new ArrayList<>();
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (read.size() < expected && System.nanoTime() < deadline) {
            if (ring.read((buffer, offset, length, position) -> {
                final byte[] bytes = new byte[length];
                buffer.read(offset, bytes, 0, length);
                read.add(new String(bytes, StandardCharsets.ISO_8859_1));
            }, 100) == 0) {
                Thread.sleep(1);
            }
        }
        return read;
    }

    @Test
    void shouldMakeAStalledProducerClaimAgainOnceItsHeaderlessClaimWasUnblockedAndDrained() throws Exception {
        expectWarning("unblocked a claim");
        try (RingBuffer ring = openRing()) {
            final long stalled = ring.claimWithoutHeader(16);
            append(ring, "behind");
            assertEquals(List.of("behind"), readUntil(ring, 1), "the reader moves past the unblocked claim");
            assertTrue(ring.headPosition() > stalled, "the unblocked space is drained and released");
            assertFalse(ring.publishHeader(stalled, 16),
                    "the stalled producer's header swap fails: the space holds the next lap's unclaimed word");
            final long again = append(ring, "again");
            assertTrue(again > stalled);
            assertEquals(List.of("again"), readUntil(ring, 1));
            assertEquals(1, ring.stats().unblockedClaims());
            assertEquals(0, ring.stats().revokedClaims());
            assertTrue(ring.isEmpty());
        }
    }

    @Test
    void shouldUnblockTwoConsecutiveHeaderlessClaimsAcrossTheWrap() throws Exception {
        expectWarning("unblocked a claim");
        try (RingBuffer ring = openRing()) {
            // move the tail to 32 bytes before the end of the data region: 7 x 512 + 480 bytes
            final String big = "x".repeat(ring.maxPayloadLength());
            for (int i = 0; i < 7; i++) {
                append(ring, big);
            }
            append(ring, "y".repeat(480 - RecordDescriptor.HEADER_LENGTH));
            assertEquals(8, readUntil(ring, 8).size());
            assertEquals(CAPACITY - 32, ring.tailPosition());
            final long first = ring.claimWithoutHeader(16);
            final long second = ring.claimWithoutHeader(40);
            assertEquals(CAPACITY - 32, first, "the first claim ends at the end of the data region");
            assertEquals(CAPACITY, second, "the second starts the next lap");
            append(ring, "after");
            assertEquals(List.of("after"), readUntil(ring, 1), "both claims are unblocked, the record after is read");
            assertFalse(ring.publishHeader(first, 16));
            assertFalse(ring.publishHeader(second, 40));
            assertEquals(1, ring.stats().unblockedClaims(), "one gap, unblocked at once");
            append(ring, "later");
            assertEquals(List.of("later"), readUntil(ring, 1));
            assertTrue(ring.isEmpty());
        }
    }

    @Test
    void shouldKeepTheRecordOfAProducerThatPublishesInsideTheGapBeforeTheUnblock() throws Exception {
        expectWarning("unblocked a claim");
        try (RingBuffer ring = openRing()) {
            final long dead = ring.claimWithoutHeader(24);
            final long live = ring.claimWithoutHeader(8);
            assertTrue(ring.publishHeader(live, 8), "the live producer publishes after the dead one's gap began");
            ring.buffer().writeLong(ring.payloadOffset(live), 4242L);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (ring.headPosition() != live && System.nanoTime() < deadline) {
                ring.read((buffer, offset, length, position) -> fail("nothing is committed yet"), 10);
                Thread.sleep(1);
            }
            assertEquals(live, ring.headPosition(), "the unblock stops at the live producer's header");
            assertTrue(ring.commit(live), "the live claim survives the unblock");
            final List<Long> read = new ArrayList<>();
            ring.read((buffer, offset, length, position) -> {
                read.add(buffer.readLong(offset));
                assertEquals(live, position);
            }, 10);
            assertEquals(List.of(4242L), read);
            assertFalse(ring.publishHeader(dead, 24));
            assertEquals(1, ring.stats().unblockedClaims());
            assertTrue(ring.isEmpty());
        }
    }

    @Test
    void shouldDrainEveryCommittedRecordOnceAfterAProducerIsKilledBetweenItsTailAndHeaderSwaps() throws Exception {
        expectWarning("unblocked a claim");
        final Path ringPath = tempDir.resolve("q.ring");
        final int capacity = 1 << 16;
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             AsyncQueue async = AsyncQueue.builder(queue).ringPath(ringPath).ringCapacity(capacity)
                     .blockedClaimTimeout(Duration.ofMillis(200)).build();
             AsyncAppender appender = async.createAppender()) {
            final int before = 10;
            final int total = before + 2000;
            int sequence = 0;
            for (; sequence < before; sequence++) {
                appender.append(message(sequence));
            }
            final long reserved;
            try (ChildJvm child = ChildJvm.start(RingChildMains.HeaderlessClaimer.class, tempDir.resolve("child.stderr"),
                    ringPath.toString(), String.valueOf(capacity))) {
                reserved = Long.parseLong(child.awaitLine("RESERVED", 60, TimeUnit.SECONDS).split(" ")[1]);
                child.kill();
            }
            async.startDrainer();
            // behind the dead claim: several laps of the ring, which the drainer can take only once it unblocked it
            for (; sequence < total; sequence++) {
                appender.append(message(sequence));
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (async.stats().drainedRecords() < total && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            final List<Integer> sequences = new ArrayList<>();
            try (ExcerptTailer tailer = queue.createTailer()) {
                while (tailer.read((bytes, offset, length, index) -> sequences.add(Messages.decode(bytes, offset, length, index)[1]))) {
                    // read to the end
                }
            }
            final List<Integer> expected = new ArrayList<>();
            for (int i = 0; i < total; i++) {
                expected.add(i);
            }
            assertEquals(expected, sequences, "every committed record once, in order");
            assertEquals(1, async.stats().unblockedClaims());
            assertTrue(async.ring().headPosition() > reserved);
            assertTrue(async.ring().isEmpty());
        }
    }

    private static byte[] message(final int sequence) {
        final byte[] message = new byte[Messages.lengthOf(1, sequence, 100)];
        Messages.encode(message, message.length, 1, sequence);
        return message;
    }
}
