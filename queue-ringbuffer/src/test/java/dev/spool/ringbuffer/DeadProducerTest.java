package dev.spool.ringbuffer;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.ChildJvm;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** A producer process killed while it holds a claim does not wedge the ring. */
class DeadProducerTest extends SpoolTestBase {

    @Test
    void shouldRevokeTheClaimOfAKilledProducerLongBeforeItsTimeout() throws Exception {
        final Path ringPath = tempDir.resolve("dead.ring");
        final int capacity = 1 << 16;
        try (RingBuffer ring = RingBuffer.open(ringPath, capacity, Duration.ofMinutes(10))) {
            final long claimed;
            final List<Long> read = new ArrayList<>();
            try (ChildJvm child = ChildJvm.start(RingChildMains.ClaimHolder.class, tempDir.resolve("child.stderr"),
                    ringPath.toString(), String.valueOf(capacity))) {
                claimed = Long.parseLong(child.awaitLine("CLAIMED", 60, TimeUnit.SECONDS).split(" ")[1]);
                final long behind = ring.tryClaim(8);
                ring.buffer().writeLong(ring.payloadOffset(behind), 42L);
                assertTrue(ring.commit(behind));
                assertEquals(0, ring.read((buffer, offset, length, position) -> read.add(position), 10),
                        "the claim of a live producer holds the reader back");
                child.kill();
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (read.isEmpty() && System.nanoTime() < deadline) {
                ring.read((buffer, offset, length, position) -> {
                    read.add(position);
                    assertEquals(42L, buffer.readLong(offset));
                }, 10);
            }
            assertEquals(1, read.size(), "the record behind the dead claim is read");
            assertTrue(read.get(0) > claimed);
            assertEquals(1, ring.stats().revokedClaims());
            assertTrue(ring.isEmpty());
        }
    }
}
