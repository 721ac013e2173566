package dev.spool.queue.engine;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.ChildMains;
import dev.spool.queue.Direction;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.ManualClock;
import dev.spool.queue.Messages;
import dev.spool.queue.Pretoucher;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.SpoolTestBase;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.EpochClock;

import static org.junit.jupiter.api.Assertions.*;

class PretoucherTest extends SpoolTestBase {
    /** A whole second: cycle boundaries of SECONDLY fall on START + n * 1000. */
    private static final long START = 1_700_000_000_000L;
    private static final long CHUNK = 1 << 20;
    private static final long LEAD_MILLIS = 200;

    private Path dir() {
        return tempDir.resolve("q");
    }

    private SpoolQueueBuilder builder(final EpochClock clock, final long pretouchLength) {
        return SpoolQueue.builder(dir()).rollCycle(RollCycle.SECONDLY).chunkLength(CHUNK).epochClock(clock)
                .pretouchLeadTime(Duration.ofMillis(LEAD_MILLIS)).pretouchLength(pretouchLength);
    }

    private static Object fileKey(final Path file) throws IOException {
        return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    }

    private static byte[] message(final int writer, final int sequence, final int maxLength) {
        final int length = Messages.lengthOf(writer, sequence, maxLength);
        final byte[] message = new byte[length];
        Messages.encode(message, length, writer, sequence);
        return message;
    }

    /** Runs verify and fails on damage or on any warning: a pretoucher leaves nothing that looks wrong. */
    private void assertVerifiesClean() {
        final String text = verify(dir());
        assertFalse(text.contains("WARNING"), text);
    }

    @Test
    void shouldCreateTheNextCycleFileWithinTheLeadTimeWithoutStartingIt() throws IOException {
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = builder(clock, 64 << 10).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer live = queue.createTailer();
             Pretoucher pretoucher = queue.createPretoucher()) {
            assertEquals(0, pretoucher.doWork(), "an empty queue: nothing to touch and no roll to prepare");
            final long first = appender.append(message(1, 0, 100));
            final long cycle = RollCycle.SECONDLY.toCycle(first);
            final Path next = Stores.of(queue).cycleFiles().path(cycle + 1);
            pretoucher.doWork();
            assertFalse(Files.exists(next), "1000 ms before the roll is earlier than the 200 ms lead time");

            clock.advance(1_000 - LEAD_MILLIS + 50);
            assertTrue(pretoucher.doWork() > 0);
            assertTrue(Files.exists(next), "created 150 ms before the roll");
            final Object createdAhead = fileKey(next);
            assertEquals(cycle, Stores.of(queue).metadata().highestCycle(), "created, not started: still the same highest cycle");
            assertVerifiesClean();
            live.toEnd();
            final long before = appender.append(message(1, 1, 100));
            assertEquals(cycle, RollCycle.SECONDLY.toCycle(before), "appends before the roll stay in their cycle");
            assertEquals(before, live.read(Bytes.allocateElasticOnHeap()), "a tailer at the end stays in the written cycle");

            clock.advance(LEAD_MILLIS - 50);
            final long after = appender.append(message(1, 2, 100));
            assertEquals(RollCycle.SECONDLY.toIndex(cycle + 1, 0), after);
            assertEquals(createdAhead, fileKey(next), "the roll wrote to the file made ahead, not a new one");
            assertEquals(after, live.read(Bytes.allocateElasticOnHeap()));
            try (ExcerptTailer tailer = queue.createTailer()) {
                final List<Long> read = new ArrayList<>();
                while (tailer.read((bytes, offset, length, index) -> {
                    Messages.decode(bytes, offset, length, index);
                    read.add(index);
                })) {
                    assertTrue(read.size() <= 3);
                }
                assertEquals(List.of(first, before, after), read);
            }
            assertTrue(pretoucher.doWork() > 0, "follows the roll");
        }
        assertVerifiesClean();
    }

    @Test
    void shouldLeaveNothingAmissWhenTheWritersSkipTheCycleMadeAhead() {
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = builder(clock, 64 << 10).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer();
             Pretoucher pretoucher = queue.createPretoucher()) {
            final long first = appender.append(message(2, 0, 100));
            final long cycle = RollCycle.SECONDLY.toCycle(first);
            clock.advance(900);
            pretoucher.doWork();
            assertTrue(Files.exists(Stores.of(queue).cycleFiles().path(cycle + 1)));
            // no append at all in the cycle it was made for
            clock.advance(1_100);
            assertEquals(0, pretoucher.doWork(), "nothing new to touch, and the next file is made already");
            final long later = appender.append(message(2, 1, 100));
            assertEquals(RollCycle.SECONDLY.toIndex(cycle + 2, 0), later);
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            assertEquals(first, tailer.read(into));
            assertEquals(later, tailer.read(into), "the tailer passes the empty cycle");
            assertEquals(-1, tailer.read(into));
            try (ExcerptTailer backward = queue.createTailer()) {
                backward.direction(Direction.BACKWARD).toEnd();
                assertEquals(later, backward.read(into));
                assertEquals(first, backward.read(into), "and backwards too");
            }
            assertEquals(later, queue.lastIndex());
            pretoucher.doWork();
            assertEquals(1, Stores.of(queue).openCycleFiles(), "the pretoucher let go of the skipped file");
        }
        assertVerifiesClean();
    }

    @Test
    void shouldTouchThePagesAheadOfTheWriterAndMapTheNextChunkBeforeItIsReached() throws IOException {
        final long pretouchLength = 2 * CHUNK;
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = builder(clock, pretouchLength).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer();
             Pretoucher pretoucher = queue.createPretoucher()) {
            final long cycle = RollCycle.SECONDLY.toCycle(appender.append(message(3, 0, 1000)));
            final Path path = Stores.of(queue).cycleFiles().path(cycle);
            final long lengthBefore = Files.size(path);
            final long writePosition = writePosition(queue, cycle);
            final long page = net.openhft.chronicle.core.OS.pageSize();
            final long expectedPages = ((writePosition + pretouchLength + page - 1) / page) - writePosition / page;
            assertEquals(expectedPages, pretoucher.doWork(), "every page from the write position to 2 MiB beyond it");
            assertTrue(Files.size(path) >= writePosition + pretouchLength,
                    "the chunks ahead are mapped, so the file grew from " + lengthBefore + " to " + Files.size(path));
            assertEquals(0, pretoucher.doWork(), "nothing new until the writer moves");

            // across the touched pages and two chunk boundaries
            int sequence = 1;
            while (writePosition(queue, cycle) < writePosition + 2 * CHUNK) {
                appender.append(message(3, sequence++, 1000));
                if (sequence % 500 == 0) {
                    assertTrue(pretoucher.doWork() > 0, "keeps ahead as the writer moves");
                }
            }
            final int[] read = {0};
            while (tailer.read((bytes, offset, length, index) -> assertEquals(read[0]++, Messages.decode(bytes, offset, length, index)[1]))) {
                assertTrue(read[0] <= sequence);
            }
            assertEquals(sequence, read[0]);
        }
        assertVerifiesClean();
    }

    private static long writePosition(final SpoolQueue queue, final long cycle) {
        final CycleFile file = Stores.of(queue).cycleFiles().acquire(cycle);
        try {
            return file.writePosition();
        } finally {
            Stores.of(queue).cycleFiles().release(file);
        }
    }

    @Test
    void shouldNotDisturbAppendersAndTailersWhileRunningOnItsOwnThread() throws Exception {
        final int writers = 2;
        final int perWriter = 15_000;
        final int maxLength = 2_000;
        final ManualClock clock = new ManualClock(START);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        try (SpoolQueue queue = builder(clock, 256 << 10).openOrCreate();
             ExcerptTailer tailer = queue.createTailer()) {
            queue.startPretoucher(Duration.ofNanos(50_000));
            final List<Thread> threads = new ArrayList<>();
            for (int w = 0; w < writers; w++) {
                final int writer = w;
                final Thread thread = new Thread(() -> {
                    try (ExcerptAppender appender = queue.createAppender()) {
                        for (int sequence = 0; sequence < perWriter; sequence++) {
                            appender.append(message(writer, sequence, maxLength));
                            if (writer == 0 && sequence % 300 == 299) {
                                // ten steps a cycle: the next file is made ahead at the eighth, then the roll comes
                                clock.advance(100);
                            }
                        }
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    }
                }, "appender-" + writer);
                threads.add(thread);
                thread.start();
            }
            final int[] nextSequence = new int[writers];
            final long[] previous = {-1};
            int read = 0;
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (read < writers * perWriter) {
                assertNull(failure.get(), () -> "an appender failed: " + failure.get());
                assertTrue(System.nanoTime() < deadline, "read only " + read + " in 120 s");
                if (tailer.await(1, TimeUnit.SECONDS) && tailer.read((bytes, offset, length, index) -> {
                    final int[] decoded = Messages.decode(bytes, offset, length, index);
                    assertEquals(nextSequence[decoded[0]]++, decoded[1], "each writer's messages in its order");
                    assertTrue(index > previous[0], "indices ascend");
                    previous[0] = index;
                })) {
                    read++;
                }
            }
            for (final Thread thread : threads) {
                thread.join();
            }
            assertNull(failure.get());
            // the clock moved 5 s during the writes: at least 4 rolls (5 if the other writer was still appending)
            final long rolls = RollCycle.SECONDLY.toCycle(previous[0]) - RollCycle.SECONDLY.cycle(START, 0);
            assertTrue(rolls >= 4, "rolled " + rolls + " times while pretouching");
        }
        for (final Thread thread : Thread.getAllStackTraces().keySet()) {
            assertFalse(thread.getName().equals(Pretoucher.THREAD_NAME) && thread.isAlive(), "closing the queue stops its thread");
        }
        assertVerifiesClean();
    }

    @Test
    void shouldStopItsThreadWhenClosedAndRefuseExecuteFromOtherThreads() {
        try (SpoolQueue queue = builder(new ManualClock(START), 64 << 10).openOrCreate()) {
            final Pretoucher pretoucher = queue.startPretoucher(Duration.ofMillis(1));
            final SpoolException e = assertThrows(SpoolException.class, pretoucher::doWork);
            assertTrue(e.getMessage().contains(Pretoucher.THREAD_NAME), e.getMessage());
            pretoucher.close();
            for (final Thread thread : Thread.getAllStackTraces().keySet()) {
                assertFalse(thread.getName().equals(Pretoucher.THREAD_NAME) && thread.isAlive());
            }
            assertThrows(SpoolException.class, pretoucher::doWork);
            assertThrows(SpoolException.class, () -> queue.startPretoucher(Duration.ZERO));
        }
    }

    @Test
    void shouldPrepareFilesForAWriterInAnotherProcess() throws Exception {
        final long pretouchLength = CHUNK;
        final ManualClock clock = new ManualClock(START);
        try (SpoolQueue queue = builder(clock, pretouchLength).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer();
             ChildJvm child = ChildJvm.start(ChildMains.Pretouch.class, tempDir.resolve("child.stderr"), dir().toString(),
                     String.valueOf(LEAD_MILLIS), String.valueOf(pretouchLength))) {
            child.awaitLine("READY", 60, TimeUnit.SECONDS);
            int sequence = 0;
            final long cycle = RollCycle.SECONDLY.toCycle(appender.append(message(4, sequence++, 500)));
            final Path path = Stores.of(queue).cycleFiles().path(cycle);
            final long writePosition = writePosition(queue, cycle);
            child.send("EXECUTE " + clock.time());
            assertTrue(executed(child) > 0);
            assertTrue(Files.size(path) >= writePosition + pretouchLength, "the other process mapped ahead: " + Files.size(path));
            final Path next = Stores.of(queue).cycleFiles().path(cycle + 1);
            assertFalse(Files.exists(next));

            clock.advance(900);
            child.send("EXECUTE " + clock.time());
            assertTrue(executed(child) > 0);
            assertTrue(Files.exists(next), "the other process created the next file, under the write lock");
            final Object createdAhead = fileKey(next);
            assertEquals(cycle, Stores.of(queue).metadata().highestCycle());
            while (writePosition(queue, cycle) < writePosition + pretouchLength) {
                appender.append(message(4, sequence++, 500));
            }
            clock.advance(100);
            final long rolled = appender.append(message(4, sequence++, 500));
            assertEquals(RollCycle.SECONDLY.toIndex(cycle + 1, 0), rolled);
            assertEquals(createdAhead, fileKey(next));
            child.send("EXECUTE " + clock.time());
            assertTrue(executed(child) > 0, "follows the roll made in this process");
            for (int i = 0; i < 100; i++) {
                appender.append(message(4, sequence++, 500));
            }
            final int[] read = {0};
            while (tailer.read((bytes, offset, length, index) -> assertEquals(read[0]++, Messages.decode(bytes, offset, length, index)[1]))) {
                assertTrue(read[0] <= sequence);
            }
            assertEquals(sequence, read[0]);
            child.send("EXIT");
            child.awaitLine("DONE", 60, TimeUnit.SECONDS);
            assertEquals(0, child.awaitExit(30, TimeUnit.SECONDS));
        }
        assertVerifiesClean();
    }

    private static int executed(final ChildJvm child) throws InterruptedException {
        return Integer.parseInt(child.awaitLine("EXECUTED", 60, TimeUnit.SECONDS).substring("EXECUTED ".length()));
    }
}
