package dev.spool.ringbuffer;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.ChildJvm;
import dev.spool.queue.Soak;
import dev.spool.queue.Messages;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

class AsyncTailerTest extends SpoolTestBase {

    /** One excerpt as a reader saw it. */
    private record Seen(long index, int sequence) {
    }

    private Path queueDir() {
        return tempDir.resolve("q");
    }

    private AsyncQueue open(final RollCycle rollCycle) {
        return open(rollCycle, 1 << 14);
    }

    private AsyncQueue open(final RollCycle rollCycle, final int ringReserve) {
        return AsyncQueue.builder(SpoolQueue.builder(queueDir()).rollCycle(rollCycle).chunkLength(1 << 20))
                .ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16).ringReserve(ringReserve).build();
    }

    private static byte[] message(final int sequence) {
        final byte[] message = new byte[Messages.lengthOf(5, sequence, 60)];
        Messages.encode(message, message.length, 5, sequence);
        return message;
    }

    private static boolean read(final AsyncTailer tailer, final List<Seen> into) {
        return tailer.read((bytes, offset, length, index) -> into.add(new Seen(index, Messages.decode(bytes, offset, length, index)[1])));
    }

    private static List<Seen> readQueue(final SpoolQueue queue) {
        final List<Seen> seen = new ArrayList<>();
        try (ExcerptTailer tailer = queue.createTailer()) {
            while (tailer.read((bytes, offset, length, index) -> seen.add(new Seen(index, Messages.decode(bytes, offset, length, index)[1])))) {
                // to the end
            }
        }
        return seen;
    }

    private static void drainAll(final Drainer drainer) {
        while (!drainer.ring().isEmpty()) {
            drainer.doWork();
        }
    }

    @Test
    void shouldReadUndrainedRecordsFromTheRingWithTheIndexTheyGetInTheQueue() {
        try (AsyncQueue async = open(RollCycle.DAILY); AsyncAppender appender = async.createAppender();
             AsyncTailer tailer = async.createTailer()) {
            for (int i = 0; i < 100; i++) {
                appender.append(message(i));
            }
            final List<Seen> seen = new ArrayList<>();
            while (read(tailer, seen)) {
                assertTrue(tailer.isReadingRing());
            }
            assertEquals(100, seen.size());
            assertEquals(100, tailer.ringReads(), "nothing was drained: all from the ring");
            drainAll(async.createDrainer());
            assertEquals(seen, readQueue(async.queue()), "same excerpts, same indices, same order");
        }
    }

    @Test
    void shouldNotReadThePreviousLapAgainWhenTheRingIsFullUpToTheTailer() {
        // 64-byte records fill the smallest ring exactly: the tail reaches the free position plus the capacity, where
        // the bytes are still the first record's, committed in the lap before
        final int recordsPerLap = 4096 / 64;
        try (AsyncQueue async = AsyncQueue.builder(SpoolQueue.builder(queueDir()).rollCycle(RollCycle.DAILY)
                .chunkLength(1 << 20)).ringPath(tempDir.resolve("q.ring")).ringCapacity(4096)
                .backPressure(BackPressure.returnCode()).build();
             AsyncAppender appender = async.createAppender(); AsyncTailer tailer = async.createTailer()) {
            final byte[] payload = new byte[64 - RecordDescriptor.HEADER_LENGTH];
            final List<Long> firstLongs = new ArrayList<>();
            for (long i = 0; i < recordsPerLap; i++) {
                java.nio.ByteBuffer.wrap(payload).order(java.nio.ByteOrder.nativeOrder()).putLong(0, i);
                assertTrue(appender.append(payload) >= 0);
            }
            java.nio.ByteBuffer.wrap(payload).order(java.nio.ByteOrder.nativeOrder()).putLong(0, recordsPerLap);
            assertEquals(RingBuffer.INSUFFICIENT_CAPACITY, appender.append(payload), "the ring is full");
            while (tailer.read((bytes, offset, length, index) -> firstLongs.add(bytes.readLong(offset)))) {
                assertTrue(tailer.isReadingRing());
            }
            assertEquals(recordsPerLap, firstLongs.size(), "one lap, each record once: " + firstLongs);
            assertFalse(tailer.read((bytes, offset, length, index) -> firstLongs.add(bytes.readLong(offset))),
                    "nothing new: the first record's bytes a lap back are not a record of this lap");

            drainAll(async.createDrainer());
            assertTrue(appender.append(payload) >= 0, "the drainer released the lap");
            final long[] next = new long[2];
            assertTrue(tailer.read((bytes, offset, length, index) -> {
                next[0] = bytes.readLong(offset);
                next[1] = index;
            }));
            assertEquals(recordsPerLap, next[0], "the first record of the next lap");
            assertEquals(recordsPerLap, async.queue().rollCycle().toSequence(next[1]));
        }
    }

    @Test
    void shouldContinueFromTheQueueWhenTheDrainerReleasedWhatItHasNotRead() {
        try (AsyncQueue async = open(RollCycle.DAILY, 0)) {
            readWhileTheDrainerOvertakes(async, 30, "10 before the drain, 20 after it: the rest from the queue");
        }
    }

    @Test
    void shouldKeepReadingTheRingWhenTheDrainerOvertakesItWithinTheReserve() {
        try (AsyncQueue async = open(RollCycle.DAILY)) {
            readWhileTheDrainerOvertakes(async, 70, "the drained records stay in the ring within the reserve");
        }
    }

    /**
     * The tailer reads 10 of 50 records, the drainer drains all 50, 20 more are appended, and the tailer reads on:
     * it sees all 70 once, in the queue's order and indices, {@code ringReads} of them from the ring.
     */
    private static void readWhileTheDrainerOvertakes(final AsyncQueue async, final long ringReads, final String why) {
        try (AsyncAppender appender = async.createAppender(); AsyncTailer tailer = async.createTailer()) {
            final Drainer drainer = async.createDrainer();
            for (int i = 0; i < 50; i++) {
                appender.append(message(i));
            }
            final List<Seen> seen = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                assertTrue(read(tailer, seen));
            }
            assertEquals(10, tailer.ringReads());
            drainAll(drainer);
            for (int i = 50; i < 70; i++) {
                appender.append(message(i));
            }
            while (read(tailer, seen)) {
                // the drained ones the tailer had not read, then the new ones
            }
            assertEquals(ringReads, tailer.ringReads(), why);
            drainAll(drainer);
            final List<Seen> queued = readQueue(async.queue());
            assertEquals(70, queued.size());
            assertEquals(queued, seen, "no gap, no repeat, the queue's indices");
        }
    }

    @Test
    void shouldGiveTheFirstRecordOfANewCycleSequenceZeroAsTheDrainerWill() {
        try (AsyncQueue async = open(RollCycle.SECONDLY); AsyncAppender appender = async.createAppender();
             AsyncTailer tailer = async.createTailer()) {
            final RollCycle cycle = RollCycle.SECONDLY;
            final long firstCycle = cycle.cycle(System.currentTimeMillis(), 0);
            int sequence = 0;
            while (cycle.cycle(System.currentTimeMillis(), 0) < firstCycle + 2) {
                appender.append(message(sequence++));
                final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(5);
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
            }
            final List<Seen> seen = new ArrayList<>();
            while (read(tailer, seen)) {
                // everything from the ring
            }
            assertEquals(sequence, seen.size());
            final Set<Long> cycles = new HashSet<>();
            for (final Seen one : seen) {
                cycles.add(cycle.toCycle(one.index()));
            }
            drainAll(async.createDrainer());
            assertEquals(readQueue(async.queue()), seen);
            assertTrue(cycles.size() >= 2, "records in more than one cycle: " + cycles);
            for (int i = 1; i < seen.size(); i++) {
                final boolean newCycle = cycle.toCycle(seen.get(i).index()) != cycle.toCycle(seen.get(i - 1).index());
                assertEquals(newCycle ? 0 : cycle.toSequence(seen.get(i - 1).index()) + 1, cycle.toSequence(seen.get(i).index()));
            }
        }
    }

    @Test
    void shouldReadWhatAProducerProcessAppendsAndADrainerProcessDrainsInQueueOrderWithQueueIndices() throws Exception {
        expectWarning("took over the write lock");
        final int total = Soak.count(20_000, 500_000);
        final int capacity = 1 << 16;
        final Path ringPath = tempDir.resolve("q.ring");
        final Path stderr = tempDir.resolve("children.stderr");
        RingChildMains.openQueue(queueDir().toString()).close();
        final List<Seen> seen = new ArrayList<>(total);
        long ringReads;
        try (AsyncQueue async = RingChildMains.openAsync(queueDir().toString(), ringPath.toString(), String.valueOf(capacity), 16);
             AsyncTailer tailer = async.createTailer();
             ChildJvm drainer = ChildJvm.start(RingChildMains.Drain.class, stderr, queueDir().toString(), ringPath.toString(),
                     String.valueOf(capacity), "16");
             ChildJvm producer = ChildJvm.start(RingChildMains.Producer.class, stderr, queueDir().toString(), ringPath.toString(),
                     String.valueOf(capacity), "5", String.valueOf(total))) {
            drainer.awaitLine("DRAINING", 60, TimeUnit.SECONDS);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(300);
            while (seen.size() < total) {
                assertTrue(System.nanoTime() < deadline, "read " + seen.size() + " of " + total);
                if (!read(tailer, seen)) {
                    Thread.onSpinWait();
                }
            }
            producer.awaitLine("DONE", 60, TimeUnit.SECONDS);
            ringReads = tailer.ringReads();
        }
        for (int i = 0; i < total; i++) {
            assertEquals(i, seen.get(i).sequence(), "queue order");
        }
        try (SpoolQueue queue = RingChildMains.openQueue(queueDir().toString())) {
            assertEquals(readQueue(queue), seen, "the indices the reader saw are the queue's");
        }
        System.out.println("AsyncTailerTest: " + total + " read, " + ringReads + " of them from the ring");
    }

    @Test
    void shouldMoveToIndicesOnEitherSideOfTheDrainAndReadOnWithoutAGapOrARepeat() {
        try (AsyncQueue async = AsyncQueue.builder(SpoolQueue.builder(queueDir()).chunkLength(1 << 20))
                .ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16).drainBatch(16).build();
             AsyncAppender appender = async.createAppender(); AsyncTailer tailer = async.createTailer()) {
            for (int i = 0; i < 40; i++) {
                appender.append(message(i));
            }
            final List<Seen> all = new ArrayList<>();
            while (read(tailer, all)) {
                // indices from the ring
            }
            assertEquals(16, async.createDrainer().doWork(), "one batch of 16 drained, 24 still only in the ring");
            assertTrue(tailer.moveToIndex(all.get(30).index()), "an undrained index, found in the ring");
            final List<Seen> seen = new ArrayList<>();
            assertTrue(read(tailer, seen));
            assertEquals(all.get(30), seen.get(0));
            assertTrue(tailer.isReadingRing());
            assertTrue(tailer.moveToIndex(all.get(5).index()), "a drained index, found in the queue");
            assertFalse(tailer.isReadingRing());
            seen.clear();
            while (read(tailer, seen)) {
                // from the queue into the ring
            }
            assertEquals(all.subList(5, 40), seen, "queue then ring, the same indices, no gap, no repeat");
            assertFalse(tailer.moveToIndex(all.get(39).index() + 1), "not appended yet");
        }
    }

    @Test
    void shouldAllocateNothingToReadOrPollForRecords() throws InterruptedException {
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        try (AsyncQueue async = open(RollCycle.DAILY); AsyncAppender appender = async.createAppender();
             AsyncTailer tailer = async.createTailer()) {
            final byte[] payload = new byte[32];
            final long[] sum = {0};
            final dev.spool.queue.ExcerptHandler handler = (bytes, offset, length, index) -> sum[0] += index;
            final Drainer drainer = async.createDrainer();
            for (int round = 0; round < 2; round++) {
                final long before = threads.getCurrentThreadAllocatedBytes();
                for (int i = 0; i < 20_000; i++) {
                    appender.append(payload);
                    assertTrue(tailer.await(0, TimeUnit.SECONDS));
                    assertTrue(tailer.read(handler));
                    assertFalse(tailer.await(0, TimeUnit.SECONDS));
                    if ((i & 255) == 255) {
                        drainAll(drainer);
                    }
                }
                final long bytes = threads.getCurrentThreadAllocatedBytes() - before;
                if (round == 1) {
                    assertTrue(bytes < 16 * 1024, "20,000 appends, awaits and reads allocated " + bytes + " bytes");
                }
            }
            assertTrue(sum[0] > 0);
        }
    }

    @Test
    void shouldResumeANamedTailerAfterItsLastCommitFromTheRingWhenTheReaderIsKilled() throws Exception {
        final Path ringPath = tempDir.resolve("q.ring");
        final int capacity = 1 << 16;
        try (AsyncQueue async = RingChildMains.openAsync(queueDir().toString(), ringPath.toString(),
                String.valueOf(capacity), 16);
             AsyncAppender appender = async.createAppender()) {
            for (int i = 0; i < 30; i++) {
                appender.append(message(i));
            }
            final List<Seen> all = new ArrayList<>();
            try (AsyncTailer reader = async.createTailer()) {
                while (read(reader, all)) {
                    // every record, from the ring: nothing is drained
                }
            }
            assertEquals(30, all.size());
            try (ChildJvm child = ChildJvm.start(RingChildMains.CommittingRingReader.class, tempDir.resolve("child.stderr"),
                    queueDir().toString(), ringPath.toString(), String.valueOf(capacity), "settle", "20", "12")) {
                final String[] line = child.awaitLine("COMMITTED", 60, TimeUnit.SECONDS).split(" ");
                assertEquals(all.get(11).index(), Long.parseLong(line[1]));
                assertEquals(20, Long.parseLong(line[3]), "the child read from the ring");
                child.kill();
            }
            try (AsyncTailer resumed = async.createTailer("settle", dev.spool.queue.CommitMode.EXPLICIT)) {
                final List<Seen> seen = new ArrayList<>();
                assertTrue(read(resumed, seen));
                assertEquals(all.get(12), seen.get(0), "after the commit, from the undrained ring: reads 13 to 20 again");
                assertTrue(resumed.isReadingRing());
            }
        }
    }
}
