package dev.spool.queue.engine;

import dev.spool.queue.CycleListener;
import dev.spool.queue.Direction;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.ManualClock;
import dev.spool.queue.Messages;
import dev.spool.queue.Pretoucher;
import dev.spool.queue.RollCycle;
import dev.spool.queue.Soak;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.internal.NamedPosition;
import dev.spool.queue.internal.QueueInternals;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.io.BackgroundResourceReleaser;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.*;

class RetentionTest extends SpoolTestBase {
    /** A whole second: cycle boundaries of SECONDLY fall on START + n * 1000. */
    private static final long START = 1_700_000_000_000L;
    private static final long FIRST = RollCycle.SECONDLY.cycle(START, 0);

    private final ManualClock clock = new ManualClock(START);
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());

    private Path dir() {
        return tempDir.resolve("q");
    }

    private SpoolQueueBuilder builder() {
        return SpoolQueue.builder(dir()).rollCycle(RollCycle.SECONDLY).chunkLength(1 << 20).epochClock(clock)
                .cycleListener(new CycleListener() {
                    @Override
                    public void onAcquired(final long cycle, final Path file) {
                        events.add("acquired " + (cycle - FIRST));
                    }

                    @Override
                    public void onReleased(final long cycle, final Path file) {
                        events.add("released " + (cycle - FIRST));
                    }

                    @Override
                    public void onDeleted(final long cycle, final Path file) {
                        assertFalse(Files.exists(file));
                        events.add("deleted " + (cycle - FIRST));
                    }
                });
    }

    /** Appends {@code perCycle} messages in each of {@code cycles} cycles, from the clock's, moving it on after each. */
    private List<Long> fill(final ExcerptAppender appender, final int cycles, final int perCycle) {
        final List<Long> indices = new ArrayList<>();
        for (int cycle = 0; cycle < cycles; cycle++) {
            for (int i = 0; i < perCycle; i++) {
                indices.add(appender.append(message(indices.size())));
            }
            clock.advance(1_000);
        }
        return indices;
    }

    private static byte[] message(final int sequence) {
        final int length = Messages.lengthOf(7, sequence, 300);
        final byte[] message = new byte[length];
        Messages.encode(message, length, 7, sequence);
        return message;
    }

    private static long[] cycles(final long... offsets) {
        final long[] cycles = new long[offsets.length];
        for (int i = 0; i < offsets.length; i++) {
            cycles[i] = FIRST + offsets[i];
        }
        return cycles;
    }

    /** @return the indices a new tailer reads from the start, checking each message. */
    private static List<Long> readAll(final ExcerptTailer tailer) {
        final List<Long> read = new ArrayList<>();
        while (tailer.read((bytes, offset, length, index) -> {
            Messages.decode(bytes, offset, length, index);
            read.add(index);
        })) {
            assertTrue(read.size() < 1_000_000);
        }
        return read;
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
    void shouldKeepTheNewestCyclesWhenANewCycleStartsAndTellTheListener() {
        try (SpoolQueue queue = builder().retainCycles(2).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final List<Long> indices = fill(appender, 5, 3);
            assertArrayEquals(cycles(3, 4), queue.cycles());
            assertEquals(FIRST + 3, Stores.of(queue).metadata().lowestCycle(), "the lowest cycle follows the deletions");
            assertEquals(indices.get(9), queue.firstIndex());
            try (ExcerptTailer tailer = queue.createTailer()) {
                assertEquals(indices.subList(9, 15), readAll(tailer), "toStart is the first cycle left");
            }
            assertEquals(0, queue.applyRetention(), "nothing more to delete");
        }
        assertEquals(List.of("acquired 0",
                "acquired 1", "released 0",
                "acquired 2", "released 1", "deleted 0",
                "acquired 3", "released 2", "deleted 1",
                "acquired 4", "released 3", "deleted 2"), events.subList(0, 12));
        assertEquals("released 4", events.get(events.size() - 1), "the queue's close");
        assertFalse(verify(dir()).contains("WARNING"));
    }

    @Test
    void shouldKeepTheNewestCyclesThatFitInRetainBytesAndAlwaysTheHighest() {
        final long[] used = new long[5];
        try (SpoolQueue queue = builder().openOrCreate(); ExcerptAppender appender = queue.createAppender()) {
            fill(appender, 5, 40);
            for (int i = 0; i < used.length; i++) {
                used[i] = writePosition(queue, FIRST + i);
            }
            assertEquals(0, queue.applyRetention(), "no limit set: everything stays");
        }
        try (SpoolQueue queue = builder().retainBytes(used[3] + used[4]).openOrCreate()) {
            assertEquals(3, queue.applyRetention());
            assertArrayEquals(cycles(3, 4), queue.cycles());
        }
        try (SpoolQueue queue = builder().retainBytes(used[3] + used[4] - 1).openOrCreate()) {
            assertEquals(1, queue.applyRetention());
            assertArrayEquals(cycles(4), queue.cycles());
        }
        try (SpoolQueue queue = builder().retainBytes(1).retainCycles(1).openOrCreate()) {
            assertEquals(0, queue.applyRetention(), "the highest cycle stays whatever its length");
            assertArrayEquals(cycles(4), queue.cycles());
        }
        assertFalse(verify(dir()).contains("WARNING"));
    }

    @Test
    void shouldNotDeleteAFileATailerOfThisProcessHasOpen() {
        try (SpoolQueue queue = builder().retainCycles(1).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            appender.append(message(0));
            assertTrue(tailer.read((bytes, offset, length, index) -> { }));
            clock.advance(1_000);
            final List<Long> later = fill(appender, 3, 2);
            assertArrayEquals(cycles(0, 1, 2, 3), queue.cycles(), "cycle 0 is read here, and deletion stops at it");
            assertEquals(later, readAll(tailer));
            assertEquals(3, queue.applyRetention(), "the tailer moved on to cycle 3");
            assertArrayEquals(cycles(3), queue.cycles());
        }
    }

    @Test
    void shouldKeepCyclesANamedTailerHasNotPassed() {
        try (SpoolQueue queue = builder().retainCycles(1).openOrCreate(); ExcerptAppender appender = queue.createAppender()) {
            try (ExcerptTailer billing = queue.createTailer("billing")) {
                final List<Long> indices = fill(appender, 2, 2);
                assertArrayEquals(cycles(0, 1), queue.cycles(), "billing has read nothing yet");
                assertEquals(indices.get(0), billing.read(Bytes.allocateElasticOnHeap()));
            }
            fill(appender, 2, 2);
            assertArrayEquals(cycles(0, 1, 2, 3), queue.cycles(), "billing has not passed cycle 0");
            try (ExcerptTailer billing = queue.createTailer("billing")) {
                final Bytes<?> into = Bytes.allocateElasticOnHeap();
                long last = -1;
                for (int i = 1; i <= 4; i++) {
                    last = billing.read(into);
                }
                assertEquals(RollCycle.SECONDLY.toIndex(FIRST + 2, 0), last, "read into cycle 2");
            }
            assertEquals(2, queue.applyRetention(), "billing's last read is in cycle 2: cycles 0 and 1 go");
            assertArrayEquals(cycles(2, 3), queue.cycles());
            try (ExcerptTailer audit = queue.createTailer("audit")) {
                assertEquals("audit", audit.name());
            }
            fill(appender, 2, 2);
            assertArrayEquals(cycles(2, 3, 4, 5), queue.cycles(), "a named tailer that has read nothing keeps everything");
        }
        assertFalse(verify(dir()).contains("WARNING"));
    }

    @Test
    void shouldDeleteUnreadCyclesWhenNamedTailersDoNotPinAndResumeAtTheFirstCycleLeft() {
        try (SpoolQueue queue = builder().retainCycles(2).retainForNamedTailers(false).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final List<Long> indices = new ArrayList<>(fill(appender, 1, 3));
            try (ExcerptTailer billing = queue.createTailer("billing")) {
                assertEquals(indices.get(0), billing.read(Bytes.allocateElasticOnHeap()));
            }
            indices.addAll(fill(appender, 4, 3));
            assertArrayEquals(cycles(3, 4), queue.cycles());
            try (ExcerptTailer billing = queue.createTailer("billing")) {
                assertEquals(indices.get(9), billing.read(Bytes.allocateElasticOnHeap()), "the first excerpt left");
            }
            try (ExcerptTailer audit = queue.createTailer("audit")) {
                assertEquals(indices.get(9), audit.read(Bytes.allocateElasticOnHeap()));
                assertEquals(indices.get(10), audit.read(Bytes.allocateElasticOnHeap()));
            }
            // a deleted cycle is no longer in the queue: moving there fails, and changes nothing
            try (ExcerptTailer tailer = queue.createTailer()) {
                assertFalse(tailer.moveToIndex(indices.get(4)));
                assertEquals(indices.get(9), tailer.read(Bytes.allocateElasticOnHeap()));
            }
        }
        verify(dir());
    }

    @Test
    void shouldMoveATailerOnWhenAnotherProcessDeletesTheCycleItReads() {
        // a second queue instance shares no open-file cache with the first: what retention in another process does
        try (SpoolQueue queue = builder().openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final List<Long> indices = fill(appender, 5, 3);
            assertEquals(indices.get(0), tailer.read(Bytes.allocateElasticOnHeap()));
            try (SpoolQueue other = SpoolQueue.builder(dir()).epochClock(clock).retainCycles(1).openOrCreate()) {
                assertEquals(4, other.applyRetention(), "the other process deletes the file this one reads too");
            }
            assertArrayEquals(cycles(4), queue.cycles());
            final List<Long> expected = new ArrayList<>(indices.subList(1, 3));
            expected.addAll(indices.subList(12, 15));
            assertEquals(expected, readAll(tailer), "reads the deleted file it has mapped to its end, then the next that exists");
            try (ExcerptTailer fresh = queue.createTailer()) {
                assertEquals(indices.subList(12, 15), readAll(fresh));
                assertFalse(fresh.moveToIndex(indices.get(3)));
                fresh.direction(Direction.BACKWARD).toEnd();
                final List<Long> backward = readAll(fresh);
                Collections.reverse(backward);
                assertEquals(indices.subList(12, 15), backward, "backwards it stops at the first cycle left");
            }
            assertEquals(RollCycle.SECONDLY.toIndex(FIRST + 5, 0), appender.append(message(15)), "writers carry on");
        }
        assertFalse(verify(dir()).contains("WARNING"));
    }

    /** 600 rolls in every build (in the slow execution), past the first check at 500; 3,000 with -Pslow. */
    @Test
    @Tag("slow")
    void shouldKeepFileDescriptorsAndOpenFilesConstantOverThousandsOfRolls() throws IOException {
        final int rolls = Soak.count(600, 3_000);
        final int retain = 3;
        try (SpoolQueue queue = builder().retainCycles(retain).pretouchLength(64 << 10).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer();
             Pretoucher pretoucher = queue.createPretoucher()) {
            int sequence = 0;
            int read = 0;
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            long fdBefore = 0;
            int openBefore = 0;
            for (int roll = 0; roll < rolls; roll++) {
                for (int i = 0; i < 3; i++) {
                    appender.append(message(sequence++));
                }
                pretoucher.doWork();
                while (true) {
                    into.clear();
                    final long index = tailer.read(into);
                    if (index < 0) {
                        break;
                    }
                    Messages.decode(into.bytesStore(), into.readPosition(), (int) into.readRemaining(), index);
                    read++;
                }
                assertEquals(sequence, read);
                clock.advance(1_000);
                if (roll == 50) {
                    BackgroundResourceReleaser.releasePendingResources();
                    fdBefore = openFileDescriptors().size();
                    openBefore = Stores.of(queue).openCycleFiles();
                }
                if (roll > 50 && roll % 500 == 0) {
                    assertEquals(openBefore, Stores.of(queue).openCycleFiles(), "open cycle files after " + roll + " rolls");
                    assertTrue(cycleFileCount() <= retain + 2, cycleFileCount() + " cycle files after " + roll + " rolls");
                }
            }
            BackgroundResourceReleaser.releasePendingResources();
            final List<String> fdAfter = openFileDescriptors();
            final List<String> cycleFds = fdAfter.stream().filter(fd -> fd.endsWith(RollCycle.FILE_SUFFIX)
                    || fd.endsWith(RollCycle.FILE_SUFFIX + " (deleted)")).toList();
            assertTrue(Math.abs(fdAfter.size() - fdBefore) <= 5, "file descriptors " + fdBefore + " before, "
                    + fdAfter.size() + " after " + rolls + " rolls; " + cycleFds.size() + " of cycle files, e.g. "
                    + cycleFds.subList(0, Math.min(5, cycleFds.size())));
            assertTrue(cycleFds.stream().noneMatch(fd -> fd.endsWith("(deleted)")), "a deleted cycle file left open: " + cycleFds);
            assertTrue(cycleFds.size() <= 2, "cycle files open: " + cycleFds);
            assertEquals(openBefore, Stores.of(queue).openCycleFiles());
            assertTrue(openBefore <= 2, "the cycle written and read, and the next one made ahead: " + openBefore);
            assertTrue(cycleFileCount() <= retain + 2, "cycle files left: " + cycleFileCount());
        }
        assertEquals(events.stream().filter(e -> e.startsWith("acquired")).count(),
                events.stream().filter(e -> e.startsWith("released")).count(), "every file opened was closed");
        assertTrue(events.stream().filter(e -> e.startsWith("deleted")).count() >= rolls - retain - 1);
        assertFalse(verify(dir()).contains("WARNING"));
    }

    private long cycleFileCount() throws IOException {
        try (Stream<Path> files = Files.list(dir())) {
            return files.filter(file -> file.toString().endsWith(RollCycle.FILE_SUFFIX)).count();
        }
    }

    /** @return what each of this process's file descriptors refers to. */
    private static List<String> openFileDescriptors() throws IOException {
        final List<String> targets = new ArrayList<>();
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            for (final Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    targets.add(Files.readSymbolicLink(fd).toString());
                } catch (IOException e) {
                    // the descriptor of the listing itself, closed by the time it is read
                    targets.add(fd.getFileName() + " (gone)");
                }
            }
        }
        return targets;
    }

    @Test
    void shouldRejectRetentionLimitsBelowOne() {
        final SpoolQueueBuilder cycles = builder().retainCycles(0);
        final SpoolException e = assertThrows(SpoolException.class, cycles::openOrCreate, "refused at build");
        assertTrue(e.getMessage().contains("retainCycles=0"), e.getMessage());
        final SpoolQueueBuilder bytes = builder().retainBytes(0);
        assertTrue(assertThrows(SpoolException.class, bytes::openOrCreate).getMessage().contains("retainBytes=0"));
        assertFalse(SpoolQueue.exists(dir()), "nothing was created");
    }

    @Test
    void shouldReleaseTheCyclesARemovedNamedTailerKept() {
        try (SpoolQueue queue = builder().retainCycles(1).openOrCreate(); ExcerptAppender appender = queue.createAppender()) {
            queue.createTailer("abandoned").close();
            fill(appender, 3, 2);
            assertArrayEquals(cycles(0, 1, 2), queue.cycles(), "a named tailer that has read nothing keeps everything");
            assertTrue(queue.removeTailer("abandoned"));
            assertEquals(2, queue.applyRetention());
            assertArrayEquals(cycles(2), queue.cycles());
        }
        assertFalse(verify(dir()).contains("WARNING"));
    }

    /** Records {@code index} as the replica's acknowledged one, as a replication source does. */
    private static void acknowledge(final SpoolQueue queue, final String replica, final long index) {
        try (NamedPosition position = queue.unwrap(QueueInternals.class).namedPosition("replica@" + replica)) {
            position.commit(index);
        }
    }

    @Test
    void shouldKeepTheCyclesAReplicaHasNotAcknowledgedWhenNamedTailersDoNotPin() {
        try (SpoolQueue queue = builder().retainCycles(1).retainForNamedTailers(false).maxReplicaLagCycles(10)
                .openOrCreate(); ExcerptAppender appender = queue.createAppender()) {
            final List<Long> indices = fill(appender, 2, 2);
            acknowledge(queue, "replica-1:7001", indices.get(2));
            queue.createTailer("billing").close();
            fill(appender, 3, 2);
            assertArrayEquals(cycles(1, 2, 3, 4), queue.cycles(), "the replica acknowledged an index of cycle 1");
            acknowledge(queue, "replica-1:7001", indices.get(3));
            assertEquals(0, queue.applyRetention(), "still in cycle 1");
        }
        try (SpoolQueue queue = builder().retainCycles(1).retainForNamedTailers(false).maxReplicaLagCycles(10)
                .openOrCreate(); ExcerptAppender appender = queue.createAppender()) {
            fill(appender, 1, 1);
            assertArrayEquals(cycles(1, 2, 3, 4, 5), queue.cycles(), "reopened, the queue still knows the replica");
            acknowledge(queue, "replica-1:7001", RollCycle.SECONDLY.toIndex(FIRST + 4, 0));
            assertEquals(3, queue.applyRetention());
            assertArrayEquals(cycles(4, 5), queue.cycles());
        }
        assertFalse(verify(dir()).contains("WARNING"));
    }

    @Test
    void shouldStopPinningForAReplicaPastMaxReplicaLagCyclesWithOneWarning() {
        expectWarning("past maxReplicaLagCycles=2");
        try (SpoolQueue queue = builder().retainCycles(1).maxReplicaLagCycles(2).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final List<Long> indices = fill(appender, 1, 2);
            acknowledge(queue, "dead:7001", indices.get(0));
            acknowledge(queue, "fresh:7002", -1);
            fill(appender, 2, 2);
            assertArrayEquals(cycles(0, 1, 2), queue.cycles(), "two cycles behind: both replicas still pin");
            assertEquals(0, countLogged("past maxReplicaLagCycles"));
            fill(appender, 3, 2);
            assertArrayEquals(cycles(5), queue.cycles(), "past the limit, neither pins");
            assertEquals(1, countLogged("replica dead:7001 acknowledged index "), "one WARN per replica");
            assertEquals(1, countLogged("replica fresh:7002 acknowledged nothing, "));
            assertTrue(logged(" cycles behind the highest cycle: past maxReplicaLagCycles=2"), "the WARN gives the lag");
            acknowledge(queue, "fresh:7002", RollCycle.SECONDLY.toIndex(FIRST + 5, 0));
            fill(appender, 2, 2);
            queue.applyRetention();
            assertEquals(Set.of("replica@dead:7001"), Stores.of(queue).retention().unpinnedReplicas(),
                    "a replica back within the limit pins again");
            assertEquals(2, countLogged("past maxReplicaLagCycles=2"), "no WARN per pass");
        }
        assertTrue(verify(dir()).contains("replica 'replica@dead:7001': acknowledged index="),
                "verify tells a replica whose cycle is gone");
    }

    @Test
    void shouldRejectAReplicaLagLimitBelowOne() {
        final SpoolQueueBuilder builder = builder().maxReplicaLagCycles(0);
        assertTrue(assertThrows(SpoolException.class, builder::openOrCreate).getMessage()
                .contains("maxReplicaLagCycles=0"));
    }
}
