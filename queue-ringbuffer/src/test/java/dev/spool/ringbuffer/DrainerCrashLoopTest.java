package dev.spool.ringbuffer;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.ChildJvm;
import dev.spool.queue.Soak;
import dev.spool.queue.Messages;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A producer process appends self-checking messages into the ring while drainer processes copy them into the
 * queue and are killed with SIGKILL at random points of their batches; each new drainer finishes its predecessor's
 * batch. At the end the queue holds every message exactly once, in order, with its exact bytes.
 */
@Tag("slow")
class DrainerCrashLoopTest extends SpoolTestBase {

    @Test
    void shouldLoseNothingAndDuplicateNothingWhenDrainersAreKilledMidBatch() throws Exception {
        expectWarning("took over the write lock");
        final int total = Soak.count(30_000, 1_000_000);
        final int kills = Soak.count(6, 200);
        final int capacity = 1 << 16;
        final Path queueDir = tempDir.resolve("q");
        final Path ringPath = tempDir.resolve("q.ring");
        final Path stderr = tempDir.resolve("children.stderr");
        final SplittableRandom random = new SplittableRandom(kills);
        final CRC32 sent = new CRC32();
        final byte[] message = new byte[100];
        for (int sequence = 0; sequence < total; sequence++) {
            final int length = Messages.lengthOf(7, sequence, message.length);
            Messages.encode(message, length, 7, sequence);
            sent.update(message, 0, length);
        }
        RingChildMains.openQueue(queueDir.toString()).close();
        try (RingBuffer observer = RingBuffer.open(ringPath, capacity);
             ChildJvm producer = ChildJvm.start(RingChildMains.Producer.class, stderr, queueDir.toString(), ringPath.toString(),
                     String.valueOf(capacity), "7", String.valueOf(total))) {
            for (int kill = 0; kill < kills; kill++) {
                try (ChildJvm drainer = ChildJvm.start(RingChildMains.Drain.class, stderr, queueDir.toString(), ringPath.toString(),
                        String.valueOf(capacity), "16")) {
                    drainer.awaitLine("DRAINING", 60, TimeUnit.SECONDS);
                    final long target = Math.min(total, observer.stats().drainedRecords() + 1 + random.nextInt(total / kills / 2));
                    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                    while (observer.stats().drainedRecords() < target) {
                        if (System.nanoTime() > deadline) {
                            fail("drainer " + kill + " made no progress: " + observer.stats() + "; children's stderr ends: "
                                    + ChildJvm.tail(stderr, 6000));
                        }
                        Thread.onSpinWait();
                    }
                    drainer.kill();
                }
            }
            try (AsyncQueue async = RingChildMains.openAsync(queueDir.toString(), ringPath.toString(), String.valueOf(capacity), 16)) {
                async.startDrainer();
                producer.awaitLine("DONE", 300, TimeUnit.SECONDS);
            }
            System.out.println("DrainerCrashLoopTest: " + kills + " drainers killed, " + observer.stats());
        }
        try (SpoolQueue queue = RingChildMains.openQueue(queueDir.toString()); ExcerptTailer tailer = queue.createTailer()) {
            final CRC32 received = new CRC32();
            final int[] next = {0};
            while (tailer.read((bytes, offset, length, index) -> {
                final int[] decoded = Messages.decode(bytes, offset, length, index);
                assertEquals(7, decoded[0]);
                assertEquals(next[0]++, decoded[1], "message in order, once");
                final byte[] copy = new byte[length];
                bytes.read(offset, copy, 0, length);
                received.update(copy, 0, length);
            })) {
                // read everything
            }
            assertEquals(total, next[0], "every message");
            assertEquals(sent.getValue(), received.getValue(), "checksum of every message");
        }
    }
}
