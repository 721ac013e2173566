package dev.spool.ringbuffer;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.ChildJvm;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** A clean close leaves the ring to another process's drainer while it lives, and drains it itself once it dies. */
class CloseTakeoverTest extends SpoolTestBase {

    @Test
    void shouldDrainEverythingOnCloseAfterTheOtherProcessesDrainerDies() throws Exception {
        final Path queueDir = tempDir.resolve("q");
        final Path ringPath = tempDir.resolve("q.ring");
        final String capacity = String.valueOf(1 << 16);
        RingChildMains.openQueue(queueDir.toString()).close();
        try (ChildJvm holder = ChildJvm.start(RingChildMains.IdleDrainer.class, tempDir.resolve("child.stderr"),
                queueDir.toString(), ringPath.toString(), capacity)) {
            holder.awaitLine("HOLDING", 60, TimeUnit.SECONDS);
            final AsyncQueue async = RingChildMains.openAsync(queueDir.toString(), ringPath.toString(), capacity, 16);
            try (AsyncAppender appender = async.createAppender()) {
                for (int i = 0; i < 10; i++) {
                    appender.append(new byte[]{(byte) i});
                }
            }
            final CompletableFuture<Void> closed = CompletableFuture.runAsync(async::close);
            final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(200);
            while (System.nanoTime() < deadline) {
                assertFalse(closed.isDone(), "close waits while a live drainer holds the ring");
                Thread.onSpinWait();
            }
            assertEquals(0, async.stats().drainedRecords());
            holder.kill();
            closed.get(60, TimeUnit.SECONDS);
        }
        try (SpoolQueue queue = RingChildMains.openQueue(queueDir.toString()); ExcerptTailer tailer = queue.createTailer()) {
            for (int i = 0; i < 10; i++) {
                final int expected = i;
                assertTrue(tailer.read((bytes, offset, length, index) -> assertEquals(expected, bytes.readByte(offset))));
            }
            assertFalse(tailer.read((bytes, offset, length, index) -> { }));
        }
    }
}
