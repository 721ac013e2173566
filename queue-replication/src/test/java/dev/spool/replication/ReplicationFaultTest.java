package dev.spool.replication;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.Soak;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Source and sink in separate child JVMs on loopback, through a relay the test can cut: at random moments during a
 * stream, kill -9 the sink, kill -9 the writer (whose process runs the source) or cut the connection. After each
 * kill of the sink, every index the source recorded as acknowledged must be on the replica; at the end, the replica
 * must hold the primary's excerpts byte for byte at the same indices, every message once, none missing.
 */
class ReplicationFaultTest extends SpoolTestBase {
    @Test
    @Tag("slow")
    void shouldKeepTheReplicaIdenticalThroughKillsAndDisconnectsDuringAStream() throws Exception {
        runFaultLoop(Soak.count(20_000, 1_000_000), Soak.count(4_000, 10_000), Soak.count(5, 100), false);
    }

    @Test
    @Tag("slow")
    void shouldKeepTheReplicaIdenticalThroughKillsAndDisconnectsWithAnInvokedSource() throws Exception {
        runFaultLoop(Soak.count(20_000, 1_000_000), Soak.count(4_000, 10_000), Soak.count(5, 100), true);
    }

    private void runFaultLoop(final long total, final long perSecond, final int faults, final boolean invoked)
            throws Exception {
        final Path stderr = tempDir.resolve("children.err");
        try {
            runFaultLoop(total, perSecond, faults, invoked, stderr);
        } catch (AssertionError | Exception e) {
            // the temporary directory goes with the test: keep what the children said, to tell why
            System.out.println("children's error output:");
            if (Files.exists(stderr)) {
                Files.readAllLines(stderr).forEach(System.out::println);
            }
            throw e;
        }
    }

    private void runFaultLoop(final long total, final long perSecond, final int faults, final boolean invoked,
                              final Path stderr) throws Exception {
        final long seed = System.nanoTime();
        final Random random = new Random(seed);
        final Path primaryDir = tempDir.resolve("primary");
        final Path replicaDir = tempDir.resolve("replica");
        final int sinkPort = freePort();
        ChildJvm sink = startSink(replicaDir, sinkPort, stderr);
        try (Proxy proxy = new Proxy(sinkPort)) {
            ChildJvm writer = startWriter(primaryDir, proxy.port(), total, perSecond, invoked, stderr);
            try {
                System.out.println("fault loop: seed " + seed + ", " + total + " messages, " + faults + " faults"
                        + (invoked ? ", invoked source" : ""));
                for (int fault = 0; fault < faults; fault++) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100 + random.nextInt(600)));
                    final int kind = random.nextInt(3);
                    System.out.println("fault " + fault + ": " + (kind == 0 ? "kill -9 the sink" : kind == 1
                            ? "kill -9 the writer and its source" : "cut the connection") + " at primary index "
                            + lastIndex(primaryDir));
                    switch (kind) {
                        case 0:
                            sink.kill();
                            final long acked = lastAcked(primaryDir);
                            final long onReplica = lastIndex(replicaDir);
                            assertTrue(onReplica >= acked, "seed " + seed + ", fault " + fault + ": index " + acked
                                    + " was acknowledged but the replica ends at " + onReplica);
                            sink = startSink(replicaDir, sinkPort, stderr);
                            break;
                        case 1:
                            writer.kill();
                            writer = startWriter(primaryDir, proxy.port(), total, perSecond, invoked, stderr);
                            break;
                        default:
                            proxy.cut();
                            break;
                    }
                }
                writer.awaitLine("DONE", 10 * total / perSecond + 60, TimeUnit.SECONDS);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!(lastIndex(primaryDir) == lastIndex(replicaDir) && lastAcked(primaryDir) == lastIndex(primaryDir))) {
                    if (System.nanoTime() - deadline > 0) {
                        fail("seed " + seed + ": the replica ends at " + lastIndex(replicaDir) + ", acked "
                                + lastAcked(primaryDir) + ", the primary at " + lastIndex(primaryDir));
                    }
                    LockSupport.parkNanos(10_000_000);
                }
            } finally {
                writer.close();
            }
        } finally {
            sink.close();
        }
        try (SpoolQueue primary = open(primaryDir); SpoolQueue replica = open(replicaDir)) {
            assertEquals(total, assertIdentical(primary, replica), "seed " + seed);
            assertEveryMessageOnce(replica, total);
        }
    }

    private static void assertEveryMessageOnce(final SpoolQueue queue, final long total) {
        final Bytes<?> bytes = Bytes.allocateElasticOnHeap();
        try (ExcerptTailer tailer = queue.createTailer()) {
            for (long expected = 0; expected < total; expected++) {
                bytes.clear();
                assertTrue(tailer.read(bytes) >= 0, "message " + expected + " is missing");
                assertEquals(expected, sequenceOf(bytes.toByteArray()), "no gap, no duplicate");
            }
            bytes.clear();
            assertEquals(-1, tailer.read(bytes), "nothing after the last message");
        } finally {
            bytes.releaseLast();
        }
    }

    private static ChildJvm startSink(final Path dir, final int port, final Path stderr) throws Exception {
        final ChildJvm sink = ChildJvm.start(ReplicationMains.Sink.class, stderr, dir.toString(), String.valueOf(port));
        sink.awaitLine("LISTENING", 60, TimeUnit.SECONDS);
        return sink;
    }

    private static ChildJvm startWriter(final Path dir, final int port, final long total, final long perSecond,
                                        final boolean invoked, final Path stderr) throws Exception {
        final ChildJvm writer = ChildJvm.start(ReplicationMains.Writer.class, stderr, dir.toString(), String.valueOf(port),
                String.valueOf(total), String.valueOf(perSecond), invoked ? "invoked" : "threaded");
        writer.awaitLine("WRITING", 60, TimeUnit.SECONDS);
        return writer;
    }

    private static long lastAcked(final Path dir) {
        try (SpoolQueue queue = open(dir)) {
            return Failover.lastAckedIndex(queue);
        }
    }

    private static long lastIndex(final Path dir) {
        if (!SpoolQueue.exists(dir)) {
            return -1;
        }
        try (SpoolQueue queue = open(dir)) {
            return queue.lastIndex();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
