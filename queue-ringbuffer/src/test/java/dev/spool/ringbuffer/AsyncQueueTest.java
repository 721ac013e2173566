package dev.spool.ringbuffer;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.Messages;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

class AsyncQueueTest extends SpoolTestBase {

    private SpoolQueue openQueue() {
        return SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
    }

    private AsyncQueueBuilder builder(final SpoolQueue queue) {
        return AsyncQueue.builder(queue).ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16);
    }

    private static List<int[]> readQueue(final SpoolQueue queue) {
        final List<int[]> read = new ArrayList<>();
        try (ExcerptTailer tailer = queue.createTailer()) {
            while (tailer.read((bytes, offset, length, index) -> read.add(Messages.decode(bytes, offset, length, index)))) {
                // read to the end
            }
        }
        return read;
    }

    private static byte[] message(final int writer, final int sequence) {
        final byte[] message = new byte[Messages.lengthOf(writer, sequence, 100)];
        Messages.encode(message, message.length, writer, sequence);
        return message;
    }

    @Test
    void shouldRefuseToFrontAQueueWithPublisherIdsNamingIt() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("p")).chunkLength(1 << 20).publisherIds(true)
                .openOrCreate()) {
            final SpoolException e = assertThrows(SpoolException.class, () -> builder(queue).build());
            assertTrue(e.getMessage().contains("publisherIds") && e.getMessage().contains(queue.directory().toString()),
                    e.getMessage());
        }
    }

    @Test
    void shouldDrainOnItsOwnThreadInRingOrderAndTellEachRecordsIndex() throws Exception {
        try (SpoolQueue queue = openQueue()) {
            // a ring that holds all 1000: the journal keeps an index until producers lap the record
            try (AsyncQueue async = builder(queue).ringCapacity(1 << 20).build(); AsyncAppender appender = async.createAppender()) {
                async.startDrainer();
                final long[] positions = new long[1000];
                for (int i = 0; i < positions.length; i++) {
                    positions[i] = appender.append(message(1, i));
                }
                long previous = -1;
                for (final long position : positions) {
                    final long index = appender.awaitIndex(position, 30, TimeUnit.SECONDS);
                    assertTrue(index > previous, "indices follow ring order");
                    previous = index;
                }
                assertEquals(previous, queue.lastIndex());
                assertEquals(1000, async.stats().drainedRecords());
                assertEquals(previous, async.stats().lastDrainedIndex());
            }
            final List<int[]> read = readQueue(queue);
            assertEquals(1000, read.size());
            for (int i = 0; i < read.size(); i++) {
                assertEquals(i, read.get(i)[1]);
            }
        }
    }

    @Test
    void shouldDrainOnTheCallersThreadWithDoWork() {
        try (SpoolQueue queue = openQueue();
             AsyncQueue async = builder(queue).drainBatch(10).build();
             AsyncAppender appender = async.createAppender()) {
            final Drainer drainer = async.createDrainer();
            for (int i = 0; i < 25; i++) {
                appender.append(message(1, i));
            }
            assertTrue(async.stats().occupancy() > 0);
            assertEquals(10, drainer.doWork());
            assertEquals(10, drainer.doWork());
            assertEquals(5, drainer.doWork());
            assertEquals(0, drainer.doWork());
            assertEquals(25, readQueue(queue).size());
            assertEquals(0, async.stats().occupancy());
            assertEquals(3, async.stats().drainedBatches());
        }
    }

    @Test
    void shouldDrainEverythingOnCleanClose() {
        try (SpoolQueue queue = openQueue()) {
            final AsyncQueue async = builder(queue).build();
            final AsyncAppender appender = async.createAppender();
            for (int i = 0; i < 300; i++) {
                appender.append(message(2, i));
            }
            assertEquals(0, async.close(Duration.ofSeconds(30)), "nothing left");
            assertEquals(300, readQueue(queue).size());
        }
    }

    @Test
    void shouldReportWhatACloseWithADeadlineLeftAndDrainItOnTheNextOpen() {
        expectWarning("left in ring");
        try (SpoolQueue queue = openQueue()) {
            final AsyncQueue async = builder(queue).build();
            final AsyncAppender appender = async.createAppender();
            appender.append(message(3, 0));
            final long open = appender.claim(20);
            for (int i = 1; i < 5; i++) {
                appender.append(message(3, i));
            }
            assertTrue(open > 0);
            assertEquals(5, async.close(Duration.ofMillis(100)), "the open claim and the 4 records behind it");
            assertEquals(1, readQueue(queue).size());
            // the open claim's producer slot was freed with the ring: the next drainer revokes it at once
            try (AsyncQueue reopened = builder(queue).build()) {
                assertEquals(0, reopened.close(Duration.ofSeconds(30)));
            }
            final List<int[]> read = readQueue(queue);
            assertEquals(5, read.size());
            for (int i = 0; i < 5; i++) {
                assertEquals(i, read.get(i)[1]);
            }
        }
    }

    @Test
    void shouldReturnACodeWhenFullUnderTheReturnCodePolicy() {
        try (SpoolQueue queue = openQueue();
             AsyncQueue async = builder(queue).ringCapacity(4096).backPressure(BackPressure.returnCode()).build();
             AsyncAppender appender = async.createAppender()) {
            final byte[] payload = new byte[200];
            int accepted = 0;
            while (appender.append(payload) >= 0) {
                accepted++;
            }
            assertEquals(4096 / 216, accepted);
            assertEquals(RingBuffer.INSUFFICIENT_CAPACITY, appender.append(payload));
            assertEquals(2, async.stats().backPressureEvents());
            assertEquals(4096 / 216 * 216, async.stats().highWaterMark());
        }
    }

    @Test
    void shouldThrowWhenFullUnderTheThrowPolicy() {
        try (SpoolQueue queue = openQueue();
             AsyncQueue async = builder(queue).ringCapacity(4096).backPressure(BackPressure.throwException()).build();
             AsyncAppender appender = async.createAppender()) {
            final byte[] payload = new byte[200];
            for (int i = 0; i < 4096 / 216; i++) {
                appender.append(payload);
            }
            final RingFullException e = assertThrows(RingFullException.class, () -> appender.append(payload));
            assertTrue(e.getMessage().contains("q.ring") && e.getMessage().contains("capacity=4096"), e.getMessage());
        }
    }

    @Test
    void shouldWaitForRoomUnderTheAwaitPolicyThenGiveUpAtTheTimeout() throws Exception {
        try (SpoolQueue queue = openQueue();
             AsyncQueue async = builder(queue).ringCapacity(4096)
                     .backPressure(BackPressure.await(Duration.ofMillis(50),
                             () -> new BackoffIdleStrategy(100, 100, 1_000, 1_000_000))).build();
             AsyncAppender appender = async.createAppender()) {
            final byte[] payload = new byte[200];
            for (int i = 0; i < 4096 / 216; i++) {
                appender.append(payload);
            }
            final long before = System.nanoTime();
            assertEquals(RingBuffer.INSUFFICIENT_CAPACITY, appender.append(payload), "no drainer: gives up");
            assertTrue(System.nanoTime() - before >= TimeUnit.MILLISECONDS.toNanos(50), "waited the timeout first");
            final Drainer drainer = async.startDrainer();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            long position;
            while ((position = appender.append(payload)) < 0 && System.nanoTime() < deadline) {
                assertTrue(drainer.isRunning());
            }
            assertTrue(position >= 0, "the drainer makes room while the appender waits");
        }
    }

    @Test
    void shouldAllowOneDrainerPerRing() {
        try (SpoolQueue queue = openQueue();
             AsyncQueue async = builder(queue).build();
             AsyncQueue second = builder(queue).build()) {
            async.startDrainer();
            final SpoolException e = assertThrows(SpoolException.class, second::createDrainer);
            assertTrue(e.getMessage().contains("already has a drainer"), e.getMessage());
        }
    }

    @Test
    void shouldFailTheDrainNamingRingAndIndicesWhenAnotherWriterTookTheNextIndex() {
        expectWarning("left in ring");
        // an appender made before the async queue opened stays open: the refusal cannot reach it
        try (SpoolQueue queue = openQueue(); dev.spool.queue.ExcerptAppender other = queue.createAppender()) {
            final AsyncQueue async = builder(queue).build();
            try (AsyncAppender appender = async.createAppender()) {
                final Drainer drainer = async.createDrainer();
                appender.append(message(6, 0));
                assertEquals(1, drainer.doWork());
                other.append(message(7, 0));
                appender.append(message(6, 1));
                final SpoolException e = assertThrows(SpoolException.class, drainer::doWork);
                assertTrue(e.getMessage().contains(async.ring().path().toString()) && e.getMessage().contains("position")
                        && e.getMessage().contains("written already"), e.getMessage());
            }
            assertEquals(1, async.close(Duration.ZERO), "the record stays in the ring");
            assertEquals(2, readQueue(queue).size());
        }
    }

    @Test
    void shouldParkItsIdleDrainerThread() throws Exception {
        try (SpoolQueue queue = openQueue(); AsyncQueue async = builder(queue).build()) {
            async.startDrainer();
            final Thread thread = drainerThread();
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (thread.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
                Thread.onSpinWait();
            }
            assertEquals(Thread.State.TIMED_WAITING, thread.getState(), "an idle drainer parks");
        }
    }

    private static Thread drainerThread() {
        for (final Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals(Drainer.THREAD_NAME)) {
                return thread;
            }
        }
        throw new AssertionError("no thread named " + Drainer.THREAD_NAME);
    }

    @Test
    void shouldFinishABatchThatADeadDrainerLeftWithoutLossOrDuplicates() {
        try (SpoolQueue queue = openQueue()) {
            final Path ringPath = tempDir.resolve("q.ring");
            try (RingBuffer ring = RingBuffer.open(ringPath, 1 << 16)) {
                for (int i = 0; i < 10; i++) {
                    final byte[] message = message(4, i);
                    final long position = ring.tryClaim(message.length);
                    ring.buffer().write(ring.payloadOffset(position), message);
                    ring.commit(position);
                }
                // what a drainer killed after copying 4 of the batch's 10 records leaves behind
                ring.drainState().writeVolatileIntent(0, ring.tailPosition(), -1, 10);
                try (dev.spool.queue.ExcerptAppender appender = queue.createAppender()) {
                    for (int i = 0; i < 4; i++) {
                        appender.append(message(4, i));
                    }
                }
            }
            try (AsyncQueue async = builder(queue).build()) {
                async.createDrainer();
                assertEquals(4, async.stats().recoveredRecords());
                assertTrue(async.ring().isEmpty());
            }
            final List<int[]> read = readQueue(queue);
            assertEquals(10, read.size());
            for (int i = 0; i < 10; i++) {
                assertEquals(i, read.get(i)[1], "each record once, in order");
            }
        }
    }
}
