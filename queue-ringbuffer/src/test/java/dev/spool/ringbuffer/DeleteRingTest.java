package dev.spool.ringbuffer;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.SpoolTestBase;
import org.agrona.concurrent.SystemEpochClock;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link AsyncQueue#deleteRing(Path)} removes a drained ring nobody uses, and refuses while a process of any kind
 * has it open or it holds records not yet drained.
 */
class DeleteRingTest extends SpoolTestBase {
    private static final String CAPACITY = String.valueOf(1 << 16);

    private Path queueDir() {
        return tempDir.resolve("q");
    }

    private Path ringPath() {
        return tempDir.resolve("q.ring");
    }

    private static Path lockFile(final Path ring) {
        return ring.resolveSibling(ring.getFileName() + ".lock");
    }

    private AsyncQueue openAsync() {
        return RingChildMains.openAsync(queueDir().toString(), ringPath().toString(), CAPACITY, 16);
    }

    @Test
    void shouldRemoveTheRingAndItsLockFileOfACleanlyClosedAsyncQueue() {
        try (AsyncQueue async = openAsync(); AsyncAppender appender = async.createAppender()) {
            appender.append(new byte[]{1, 2, 3});
        }
        assertTrue(Files.exists(ringPath()) && Files.exists(lockFile(ringPath())), "a clean close leaves both files");
        assertTrue(AsyncQueue.deleteRing(ringPath()));
        assertFalse(Files.exists(ringPath()), "ring file removed");
        assertFalse(Files.exists(lockFile(ringPath())), "lock file removed");
        assertFalse(AsyncQueue.deleteRing(ringPath()), "nothing left to remove");
        try (AsyncQueue async = openAsync(); AsyncAppender appender = async.createAppender()) {
            appender.append(new byte[]{4});
        }
        assertEquals(2, records(), "the record drained before the deletion is in the queue, and a new ring works");
    }

    @Test
    void shouldRefuseWhileAnAsyncQueueOfThisProcessHasTheRingOpen() {
        try (AsyncQueue async = openAsync()) {
            final SpoolException e = assertThrows(SpoolException.class, () -> AsyncQueue.deleteRing(ringPath()));
            assertTrue(e.getMessage().contains(ringPath().toString()) && e.getMessage().contains("of this process has it open"),
                    e.getMessage());
            assertTrue(Files.exists(ringPath()));
            try (AsyncAppender appender = async.createAppender()) {
                appender.append(new byte[]{1});
            }
        }
        assertTrue(AsyncQueue.deleteRing(ringPath()));
    }

    @Test
    void shouldRefuseWhileAChildProcessHasTheRingOpenAndDeleteOnceItExits() throws Exception {
        openAsync().close();
        try (ChildJvm child = ChildJvm.start(RingChildMains.HoldUntilTold.class, tempDir.resolve("child.stderr"),
                queueDir().toString(), ringPath().toString(), CAPACITY)) {
            child.awaitLine("OPEN", 60, TimeUnit.SECONDS);
            final SpoolException e = assertThrows(SpoolException.class, () -> AsyncQueue.deleteRing(ringPath()));
            assertTrue(e.getMessage().contains(ringPath().toString()) && e.getMessage().contains("another process uses it")
                    && e.getMessage().contains("producer slot"), e.getMessage());
            assertTrue(Files.exists(ringPath()) && Files.exists(lockFile(ringPath())), "nothing removed");
            child.send("close");
            child.awaitLine("CLOSED", 60, TimeUnit.SECONDS);
            assertEquals(0, child.awaitExit(60, TimeUnit.SECONDS));
        }
        assertTrue(AsyncQueue.deleteRing(ringPath()));
        assertFalse(Files.exists(ringPath()) || Files.exists(lockFile(ringPath())));
    }

    @Test
    void shouldRefuseWhileAChildProcessDrainsTheRingAndDeleteOnceItIsKilled() throws Exception {
        try (ChildJvm child = ChildJvm.start(RingChildMains.IdleDrainer.class, tempDir.resolve("child.stderr"),
                queueDir().toString(), ringPath().toString(), CAPACITY)) {
            child.awaitLine("HOLDING", 60, TimeUnit.SECONDS);
            final SpoolException e = assertThrows(SpoolException.class, () -> AsyncQueue.deleteRing(ringPath()));
            assertTrue(e.getMessage().contains("another process uses it, holding the drainer lock"), e.getMessage());
            child.kill();
        }
        // the kernel released the killed process's locks; its ring was empty
        assertTrue(AsyncQueue.deleteRing(ringPath()));
        assertFalse(Files.exists(ringPath()) || Files.exists(lockFile(ringPath())));
    }

    @Test
    void shouldRefuseARingHoldingRecordsNotYetDrainedUntilTheyAre() {
        expectWarning("left in ring");
        final AsyncQueue async = openAsync();
        try (AsyncAppender appender = async.createAppender()) {
            for (int i = 0; i < 3; i++) {
                appender.append(new byte[100]);
            }
        }
        final long undrained = async.ring().tailPosition() - async.ring().headPosition();
        assertTrue(undrained >= 300, "three records of 100 bytes and their headers: " + undrained);
        assertEquals(3, async.close(Duration.ZERO), "no drainer: the records stay in the ring");
        final SpoolException e = assertThrows(SpoolException.class, () -> AsyncQueue.deleteRing(ringPath()));
        assertTrue(e.getMessage().contains(ringPath().toString()) && e.getMessage().contains("holds " + undrained
                + " bytes of records not yet drained"), e.getMessage());
        assertTrue(Files.exists(ringPath()));
        openAsync().close();
        assertEquals(3, records(), "the next close drained them");
        assertTrue(AsyncQueue.deleteRing(ringPath()));
    }

    @Test
    void shouldLeaveAFileThatIsNotARingAsItWas() throws Exception {
        final Path notARing = tempDir.resolve("notes.txt");
        final byte[] content = new byte[8192];
        Files.write(notARing, content);
        assertThrows(CorruptQueueException.class, () -> AsyncQueue.deleteRing(notARing));
        assertArrayEquals(content, Files.readAllBytes(notARing));
        assertFalse(Files.exists(lockFile(notARing)), "no lock file made for it");
    }

    @Test
    void shouldRefuseToUseARingDeletedBetweenItsMappingAndItsSlot() throws Exception {
        RingBuffer.open(ringPath(), 1 << 16).close();
        final RingFile mapped = RingFile.open(ringPath(), 1 << 16, SpoolQueueBuilder.DEFAULT_FILE_MODE,
                SystemEpochClock.INSTANCE);
        try {
            mapped.checkLinked();
            // what a deletion in another process does between this process's mapping and its slot
            Files.delete(ringPath());
            RingBuffer.open(ringPath(), 1 << 16).close();
            final SpoolException e = assertThrows(SpoolException.class, mapped::checkLinked);
            assertTrue(e.getMessage().contains(ringPath().toString()) && e.getMessage().contains("was deleted while"),
                    e.getMessage());
        } finally {
            mapped.close();
        }
    }

    private long records() {
        try (SpoolQueue queue = RingChildMains.openQueue(queueDir().toString()); ExcerptTailer tailer = queue.createTailer()) {
            long count = 0;
            while (tailer.read((bytes, offset, length, index) -> { })) {
                count++;
            }
            return count;
        }
    }
}
