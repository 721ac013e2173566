package dev.spool.ringbuffer;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.Messages;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static dev.spool.ringbuffer.RecordDescriptor.HEADER_LENGTH;
import static dev.spool.ringbuffer.RecordDescriptor.align;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The ring's promise with the drainer stalled as a disk stall would stall it, through {@link DrainHook}: the
 * appenders go on until the ring is full, ring readers read every committed record while the drainer is stuck, and
 * after the stall the queue holds every record once, in order, at the indices the readers saw.
 */
class DrainerStallTest extends SpoolTestBase {
    private static final int CAPACITY = 1 << 16;
    private static final int BATCH = 8;
    private static final int BEFORE_DRAINER = 20;
    private static final int PAYLOAD_LENGTH = 32;

    /** Where in its third batch the drainer stalls. */
    enum StallPoint {
        /** After the third record's append: intent written, batch part-way, snapshot and head unmoved. */
        MID_BATCH,
        /** After the whole batch, before the drained snapshot moves. */
        BEFORE_SNAPSHOT,
        /** After the snapshot and head moved, before the drainer frees space. */
        BETWEEN_SNAPSHOT_AND_FREE
    }

    /** One excerpt as a reader saw it. */
    private record Seen(long index, int sequence) {
    }

    /** Stalls the drainer's thread at one point until the test lets it go. */
    private static final class Stall implements DrainHook {
        private final StallPoint point;
        private final CountDownLatch stalled = new CountDownLatch(1);
        private final CountDownLatch released = new CountDownLatch(1);
        private int appends;
        private int batches;

        Stall(final StallPoint point) {
            this.point = point;
        }

        @Override
        public void afterAppend(final long position, final long index) {
            if (++appends == 2 * BATCH + 3 && point == StallPoint.MID_BATCH) {
                stall();
            }
        }

        @Override
        public void beforeSnapshot(final long from, final long to) {
            if (++batches == 3 && point == StallPoint.BEFORE_SNAPSHOT) {
                stall();
            }
        }

        @Override
        public void beforeRelease(final long from, final long to) {
            if (batches == 3 && point == StallPoint.BETWEEN_SNAPSHOT_AND_FREE) {
                stall();
            }
        }

        private void stall() {
            stalled.countDown();
            try {
                if (!released.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the test never released the stalled drainer");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }

    private static byte[] message(final int sequence) {
        final byte[] message = new byte[PAYLOAD_LENGTH];
        Messages.encode(message, message.length, 7, sequence);
        return message;
    }

    /** Reads until the tailer has nothing more: it never waits, so what it cannot read now it does not read. */
    private static void readAvailable(final AsyncTailer tailer, final List<Seen> into) {
        while (tailer.read((bytes, offset, length, index) ->
                into.add(new Seen(index, Messages.decode(bytes, offset, length, index)[1])))) {
            // to what is committed
        }
    }

    private static List<Seen> readQueue(final SpoolQueue queue) {
        final List<Seen> seen = new ArrayList<>();
        try (ExcerptTailer tailer = queue.createTailer()) {
            while (tailer.read((bytes, offset, length, index) ->
                    seen.add(new Seen(index, Messages.decode(bytes, offset, length, index)[1])))) {
                // to the end
            }
        }
        return seen;
    }

    @ParameterizedTest
    @EnumSource(StallPoint.class)
    void shouldKeepReadingFromRingWhileDrainerIsStalled(final StallPoint point) throws InterruptedException {
        final Stall stall = new Stall(point);
        try (AsyncQueue async = AsyncQueue.builder(SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.DAILY)
                        .chunkLength(1 << 20))
                .ringPath(tempDir.resolve("q.ring")).ringCapacity(CAPACITY).drainBatch(BATCH)
                .backPressure(BackPressure.returnCode()).drainHook(stall).build();
             AsyncAppender appender = async.createAppender();
             AsyncTailer ahead = async.createTailer()) {
            final RingBuffer ring = async.ring();
            final List<Seen> aheadSeen = new ArrayList<>();
            int sequence = 0;
            while (sequence < BEFORE_DRAINER) {
                assertTrue(appender.append(message(sequence++)) >= 0);
            }
            readAvailable(ahead, aheadSeen);
            assertEquals(BEFORE_DRAINER, aheadSeen.size());
            try {
                async.startDrainer();
                assertTrue(stall.stalled.await(30, TimeUnit.SECONDS), "the drainer reached the stall point");
                // case C: a tailer that starts from the queue, which holds part of the batch being drained
                final List<Seen> fromQueueSeen = new ArrayList<>();
                try (AsyncTailer fromQueue = async.createTailer()) {
                    readAvailable(fromQueue, fromQueueSeen);
                    assertEquals(BEFORE_DRAINER, fromQueueSeen.size(), "read the queue, then the undrained rest from the ring");

                    final int recordLength = align(HEADER_LENGTH + PAYLOAD_LENGTH);
                    while (true) {
                        final long position = appender.append(message(sequence));
                        if (position == RingBuffer.INSUFFICIENT_CAPACITY) {
                            final long free = ring.capacity() - (ring.tailPosition() - ring.freePosition());
                            assertTrue(free < 2L * recordLength, "the first refusal found the ring full: free=" + free
                                    + " bytes, one record takes " + recordLength + " and the wrap's padding less");
                            break;
                        }
                        sequence++;
                        if (sequence % 64 == 0) {
                            readAvailable(ahead, aheadSeen);
                            readAvailable(fromQueue, fromQueueSeen);
                        }
                    }
                    assertTrue(sequence > CAPACITY / 2 / recordLength, "appended " + sequence + " records while stalled");
                    readAvailable(ahead, aheadSeen);
                    readAvailable(fromQueue, fromQueueSeen);
                    assertEquals(1, stall.released.getCount(), "the drainer is still stalled");
                    assertEquals(sequence, aheadSeen.size(), "the tailer ahead of the drainer read every record");
                    assertEquals(sequence, fromQueueSeen.size(), "the tailer from the queue read every record");
                    assertEquals(aheadSeen, fromQueueSeen, "both saw the same indices and payloads");
                }
            } finally {
                stall.released.countDown();
            }
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!ring.isEmpty()) {
                assertTrue(System.nanoTime() - deadline < 0, "the drainer drained the ring after the stall");
                Thread.onSpinWait();
            }
            final List<Seen> queued = readQueue(async.queue());
            assertEquals(aheadSeen, queued, "the queue holds every record once, in order, at the indices the ring gave");
            for (int i = 0; i < queued.size(); i++) {
                assertEquals(i, queued.get(i).sequence());
                if (i > 0) {
                    assertEquals(queued.get(i - 1).index() + 1, queued.get(i).index(), "contiguous indices");
                }
            }
            assertFalse(ahead.read((bytes, offset, length, index) -> fail("nothing more to read")));
        }
    }

    @Test
    void shouldStallTheDrainerMidBatchForTheDiagnosticStall() {
        try (AsyncQueue async = AsyncQueue.builder(SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20))
                .ringPath(tempDir.resolve("q.ring")).ringCapacity(CAPACITY)
                .diagnosticDrainStall(Duration.ZERO, Duration.ofMillis(20)).build();
             AsyncAppender appender = async.createAppender();
             AsyncTailer tailer = async.createTailer()) {
            for (int sequence = 0; sequence < 3; sequence++) {
                appender.append(message(sequence));
            }
            final Drainer drainer = async.createDrainer();
            final long start = System.nanoTime();
            assertEquals(3, drainer.doWork());
            final long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(tookMillis >= 60, "a 20 ms stall after each of 3 appends, took " + tookMillis + " ms");
            final List<Seen> seen = new ArrayList<>();
            readAvailable(tailer, seen);
            assertEquals(readQueue(async.queue()), seen);
        }
    }
}
