package dev.spool.replication;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.ManualClock;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Retention on a primary that knows its replicas, over real sockets, with the sink in a child JVM killed with
 * kill -9: the primary rolls a cycle each time the test moves its clock, and retention runs at each roll. A replica
 * away for fewer cycles than the lag limit keeps its cycles on the primary, even across a restart of the primary, and
 * catches up when it comes back; one away for longer stops keeping them (one WARN) and, back, is set aside (kept
 * whole) and rebuilt from the primary's oldest cycle, without an operator.
 */
class ReplicaRetentionTest extends SpoolTestBase {
    /** A whole second: cycle boundaries of SECONDLY fall on START + n * 1000. */
    private static final long START = 1_700_000_000_000L;
    private static final int RETAIN_CYCLES = 2;
    private static final int PER_CYCLE = 50;

    private final ManualClock clock = new ManualClock(START);
    private long appended;

    private SpoolQueue openPrimary(final Path directory, final int maxReplicaLagCycles) {
        return SpoolQueue.builder(directory).rollCycle(RollCycle.SECONDLY).chunkLength(1 << 20).epochClock(clock)
                .retainCycles(RETAIN_CYCLES).maxReplicaLagCycles(maxReplicaLagCycles).openOrCreate();
    }

    /** Appends {@link #PER_CYCLE} messages in each of {@code cycles} cycles, rolling to the next after each. */
    private void fill(final SpoolQueue primary, final int cycles) {
        try (ExcerptAppender appender = primary.createAppender()) {
            for (int cycle = 0; cycle < cycles; cycle++) {
                Replicas.append(appender, appended, appended + PER_CYCLE);
                appended += PER_CYCLE;
                clock.advance(1_000);
            }
        }
    }

    @Test
    void shouldKeepTheCyclesOfAKilledReplicaAcrossARestartOfThePrimaryAndCatchItUpWhenItComesBack() throws Exception {
        expectWarning("connection to");
        final Path primaryDir = tempDir.resolve("primary");
        final Path replicaDir = tempDir.resolve("replica");
        final Path stderr = tempDir.resolve("sink.err");
        final int port = freePort();
        ChildJvm sink = startSink(replicaDir, port, stderr);
        try {
            final long acked;
            try (SpoolQueue primary = openPrimary(primaryDir, 10);
                 ReplicationSource source = ReplicationMains.source(primary, String.valueOf(port)).start()) {
                fill(primary, 2);
                awaitAcknowledged(source, primary);
                acked = source.ackedIndex(0);
                sink.kill();
                Replicas.await(() -> !source.isConnected(0), "the source sees the replica gone");
                fill(primary, 3);
                assertEquals(4, primary.cycles().length, "the killed replica's cycle and every one after it stay");
            }
            try (SpoolQueue primary = openPrimary(primaryDir, 10)) {
                fill(primary, 2);
                assertEquals(RollCycle.SECONDLY.toCycle(acked), primary.cycles()[0],
                        "restarted, the primary still keeps the cycle of the replica's acknowledged index");
                assertEquals(6, primary.cycles().length);
                sink = startSink(replicaDir, port, stderr);
                try (ReplicationSource source = ReplicationMains.source(primary, String.valueOf(port)).start()) {
                    awaitAcknowledged(source, primary);
                }
                fill(primary, 1);
                assertEquals(RETAIN_CYCLES, primary.cycles().length, "caught up, the replica keeps nothing more");
            }
            stop(sink);
            final List<byte[]> replicated = excerpts(replicaDir);
            assertEquals(appended - PER_CYCLE, replicated.size(),
                    "every message up to the catch-up, from the first, is on the replica: it never lost a cycle");
            for (int i = 0; i < replicated.size(); i++) {
                assertEquals(i, Replicas.sequenceOf(replicated.get(i)), "no gap, no duplicate");
            }
            assertFalse(Files.exists(tempDir.resolve("replica.behind-retention")), "nothing was set aside");
        } finally {
            sink.close();
        }
    }

    @Test
    void shouldRebuildAReplicaPastTheLagLimitFromTheOldestCycleAndKeepItsOldDirectoryWhole() throws Exception {
        expectWarning("connection to");
        expectWarning("past maxReplicaLagCycles=3");
        expectWarning("which retention deleted from the source");
        final Path primaryDir = tempDir.resolve("primary");
        final Path replicaDir = tempDir.resolve("replica");
        final Path stderr = tempDir.resolve("sink.err");
        final int port = freePort();
        ChildJvm sink = startSink(replicaDir, port, stderr);
        try (SpoolQueue primary = openPrimary(primaryDir, 3)) {
            try (ReplicationSource source = ReplicationMains.source(primary, String.valueOf(port)).start()) {
                fill(primary, 2);
                awaitAcknowledged(source, primary);
                sink.kill();
                Replicas.await(() -> !source.isConnected(0), "the source sees the replica gone");
                fill(primary, 3);
                assertEquals(4, primary.cycles().length, "three cycles behind, the replica still keeps its cycles");
                assertEquals(0, countLogged("past maxReplicaLagCycles"));
                assertTrue(source.isRetainedFor(0));
                fill(primary, 3);
                assertEquals(RETAIN_CYCLES, primary.cycles().length, "past the limit, the replica keeps nothing");
                assertEquals(1, countLogged("past maxReplicaLagCycles=3"), "one WARN, not one per retention pass");
                assertFalse(source.isRetainedFor(0), "the source tells that the replica no longer keeps its cycles");
                assertTrue(logged(":" + port + " acknowledged index "), "the WARN names the replica");
            }
            final List<byte[]> before = excerpts(replicaDir);
            final String[] filesBefore = fileNames(replicaDir);
            assertEquals(2 * PER_CYCLE, before.size());

            sink = startSink(replicaDir, port, stderr);
            try (ReplicationSource source = ReplicationMains.source(primary, String.valueOf(port)).start()) {
                awaitAcknowledged(source, primary);
            }
            stop(sink);
            final Path aside = tempDir.resolve("replica.behind-retention");
            assertTrue(Files.isDirectory(aside), "the old replica is set aside");
            assertTrue(ChildJvm.tail(stderr, 1 << 16).contains("set aside as " + aside),
                    "the sink's ERROR names where it went");
            assertArrayEquals(filesBefore, fileNames(aside), "every file of the old replica is kept");
            final List<byte[]> kept = excerpts(aside);
            assertEquals(before.size(), kept.size());
            for (int i = 0; i < before.size(); i++) {
                assertArrayEquals(before.get(i), kept.get(i), "the old replica's excerpt " + i + " is intact");
            }
            try (SpoolQueue replica = SpoolQueue.builder(replicaDir).readOnly().open()) {
                assertEquals(primary.firstIndex(), replica.firstIndex(),
                        "rebuilt from the primary's oldest cycle, at the primary's indices");
                assertTrue(RollCycle.SECONDLY.toCycle(replica.firstIndex()) > RollCycle.SECONDLY.cycle(START, 0) + 2);
                Replicas.assertIdentical(primary, replica);
            }
        } finally {
            sink.close();
        }
    }

    private static void awaitAcknowledged(final ReplicationSource source, final SpoolQueue primary) {
        final long last = primary.lastIndex();
        Replicas.await(() -> source.ackedIndex(0) == last, "the replica acknowledges index " + last);
    }

    /** @return every excerpt of the queue in the directory, read without writing anything. */
    private static List<byte[]> excerpts(final Path directory) {
        final List<byte[]> excerpts = new ArrayList<>();
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open();
             ExcerptTailer tailer = queue.createTailer()) {
            final Bytes<?> bytes = Bytes.allocateElasticOnHeap();
            try {
                while (tailer.read(bytes) >= 0) {
                    excerpts.add(bytes.toByteArray());
                    bytes.clear();
                }
            } finally {
                bytes.releaseLast();
            }
        }
        return excerpts;
    }

    private static String[] fileNames(final Path directory) throws IOException {
        try (Stream<Path> files = Files.list(directory)) {
            final String[] names = files.map(file -> file.getFileName().toString()).toArray(String[]::new);
            Arrays.sort(names);
            return names;
        }
    }

    private static ChildJvm startSink(final Path dir, final int port, final Path stderr) throws Exception {
        final ChildJvm sink = ChildJvm.start(ReplicationMains.Sink.class, stderr, dir.toString(), String.valueOf(port));
        sink.awaitLine("LISTENING", 60, TimeUnit.SECONDS);
        return sink;
    }

    private static void stop(final ChildJvm sink) throws Exception {
        sink.send("STOP");
        assertEquals(0, sink.awaitExit(30, TimeUnit.SECONDS));
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
