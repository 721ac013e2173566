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
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * Source and sinks in separate child JVMs on loopback, each sink through a relay the test can cut: at random moments
 * during a stream, kill -9 a sink, kill -9 the writer (whose process runs the source) or cut a sink's connection.
 * After every fault, every index the source recorded as acknowledged by any replica must be on at least one, every
 * index acknowledged by its ack quorum (k of N, a majority) on at least k, and the replicas must hold the same bytes
 * at the indices they share; at the end, each replica must hold the primary's excerpts byte for byte at the same
 * indices, every message once, none missing. All along, an attacker without the secret keeps at every sink: bursts
 * of connections that connect and reset, and connections that connect and send nothing, which may cost a
 * handshake's place for a while but never the source that streams.
 */
class ReplicationFaultTest extends SpoolTestBase {
    @Test
    @Tag("slow")
    void shouldKeepTheReplicaIdenticalThroughKillsAndDisconnectsDuringAStream() throws Exception {
        runFaultLoop(Soak.count(20_000, 1_000_000), Soak.count(4_000, 10_000), Soak.count(5, 100), false, 1);
    }

    @Test
    @Tag("slow")
    void shouldKeepTheReplicaIdenticalThroughKillsAndDisconnectsWithAnInvokedSource() throws Exception {
        runFaultLoop(Soak.count(20_000, 1_000_000), Soak.count(4_000, 10_000), Soak.count(5, 100), true, 1);
    }

    @Test
    @Tag("slow")
    void shouldKeepTwoReplicasIdenticalAndEveryQuorumAckedIndexOnBothThroughKillsAndDisconnects() throws Exception {
        runFaultLoop(Soak.count(20_000, 1_000_000), Soak.count(4_000, 10_000), Soak.count(5, 100), false, 2);
    }

    private void runFaultLoop(final long total, final long perSecond, final int faults, final boolean invoked,
                              final int replicas) throws Exception {
        final Path stderr = tempDir.resolve("children.err");
        try {
            runFaultLoop(total, perSecond, faults, invoked, replicas, stderr);
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
                              final int replicas, final Path stderr) throws Exception {
        final long seed = System.nanoTime();
        final Random random = new Random(seed);
        final int quorum = replicas / 2 + 1;
        final Path primaryDir = tempDir.resolve("primary");
        final Path[] replicaDirs = new Path[replicas];
        final int[] sinkPorts = new int[replicas];
        final ChildJvm[] sinks = new ChildJvm[replicas];
        final Proxy[] proxies = new Proxy[replicas];
        final StringBuilder proxyPorts = new StringBuilder();
        try {
            for (int i = 0; i < replicas; i++) {
                replicaDirs[i] = tempDir.resolve("replica" + i);
                sinkPorts[i] = freePort();
                sinks[i] = startSink(replicaDirs[i], sinkPorts[i], stderr);
                proxies[i] = new Proxy(sinkPorts[i]);
                proxyPorts.append(i == 0 ? "" : ",").append(proxies[i].port());
            }
            ChildJvm writer = startWriter(primaryDir, proxyPorts.toString(), total, perSecond, invoked, stderr);
            final Attacker attacker = new Attacker(sinkPorts, seed);
            try {
                System.out.println("fault loop: seed " + seed + ", " + total + " messages, " + faults + " faults, "
                        + replicas + " replicas, ack quorum " + quorum + (invoked ? ", invoked source" : ""));
                for (int fault = 0; fault < faults; fault++) {
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100 + random.nextInt(600)));
                    // 0 to N - 1: kill a sink; N: kill the writer; N + 1 to 2N: cut a sink's connection
                    final int kind = random.nextInt(2 * replicas + 1);
                    System.out.println("fault " + fault + ": " + (kind < replicas ? "kill -9 sink " + kind
                            : kind == replicas ? "kill -9 the writer and its source"
                            : "cut the connection to sink " + (kind - replicas - 1)) + " at primary index "
                            + lastIndex(primaryDir));
                    if (kind < replicas) {
                        sinks[kind].kill();
                    } else if (kind == replicas) {
                        writer.kill();
                    } else {
                        proxies[kind - replicas - 1].cut();
                    }
                    assertAcknowledgedOnEnoughReplicas(primaryDir, replicaDirs, quorum, "seed " + seed + ", fault " + fault);
                    assertReplicasAgree(replicaDirs, "seed " + seed + ", fault " + fault);
                    if (kind < replicas) {
                        sinks[kind] = startSink(replicaDirs[kind], sinkPorts[kind], stderr);
                    } else if (kind == replicas) {
                        writer = startWriter(primaryDir, proxyPorts.toString(), total, perSecond, invoked, stderr);
                    }
                }
                writer.awaitLine("DONE", 10 * total / perSecond + 60, TimeUnit.SECONDS);
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!caughtUp(primaryDir, replicaDirs)) {
                    if (System.nanoTime() - deadline > 0) {
                        fail("seed " + seed + ": the replicas end at " + lastIndices(replicaDirs) + ", acked "
                                + lastAcked(primaryDir) + ", by the quorum " + quorumAcked(primaryDir)
                                + ", the primary at " + lastIndex(primaryDir));
                    }
                    LockSupport.parkNanos(10_000_000);
                }
            } finally {
                attacker.close();
                writer.close();
            }
            System.out.println("the attacker made " + attacker.connections + " connections");
            assertTrue(attacker.connections > 0, "the attacker was at work");
        } finally {
            for (int i = 0; i < replicas; i++) {
                if (proxies[i] != null) {
                    proxies[i].close();
                }
                if (sinks[i] != null) {
                    sinks[i].close();
                }
            }
        }
        try (SpoolQueue primary = open(primaryDir)) {
            for (final Path replicaDir : replicaDirs) {
                try (SpoolQueue replica = open(replicaDir)) {
                    assertEquals(total, assertIdentical(primary, replica), "seed " + seed + ", " + replicaDir);
                    assertEveryMessageOnce(replica, total);
                }
            }
        }
    }

    /** Every index acknowledged by any replica is on one at least, every index acknowledged by k on k at least. */
    private static void assertAcknowledgedOnEnoughReplicas(final Path primaryDir, final Path[] replicaDirs,
                                                           final int quorum, final String when) {
        // read before the replicas' ends, which only grow
        final long acked = lastAcked(primaryDir);
        final long quorumAcked = quorumAcked(primaryDir);
        int holdingAcked = 0;
        int holdingQuorumAcked = 0;
        for (final Path replicaDir : replicaDirs) {
            final long last = lastIndex(replicaDir);
            holdingAcked += last >= acked ? 1 : 0;
            holdingQuorumAcked += last >= quorumAcked ? 1 : 0;
        }
        assertTrue(holdingAcked >= 1, when + ": index " + acked + " was acknowledged but the replicas end at "
                + lastIndices(replicaDirs));
        assertTrue(holdingQuorumAcked >= quorum, when + ": index " + quorumAcked + " was acknowledged by " + quorum
                + " replicas but the replicas end at " + lastIndices(replicaDirs));
    }

    /** The replicas hold the same bytes at every index they share: a common prefix of the primary's history. */
    private static void assertReplicasAgree(final Path[] replicaDirs, final String when) {
        for (int i = 1; i < replicaDirs.length; i++) {
            if (!SpoolQueue.exists(replicaDirs[0]) || !SpoolQueue.exists(replicaDirs[i])) {
                continue;
            }
            try (SpoolQueue first = open(replicaDirs[0]); SpoolQueue other = open(replicaDirs[i])) {
                assertSamePrefix(first, other, when);
            }
        }
    }

    private static boolean caughtUp(final Path primaryDir, final Path[] replicaDirs) {
        final long last = lastIndex(primaryDir);
        for (final Path replicaDir : replicaDirs) {
            if (lastIndex(replicaDir) != last) {
                return false;
            }
        }
        return lastAcked(primaryDir) == last && quorumAcked(primaryDir) == last;
    }

    private static String lastIndices(final Path[] replicaDirs) {
        final StringBuilder text = new StringBuilder();
        for (final Path replicaDir : replicaDirs) {
            text.append(text.length() == 0 ? "" : ", ").append(lastIndex(replicaDir));
        }
        return text.toString();
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

    private static ChildJvm startWriter(final Path dir, final String ports, final long total, final long perSecond,
                                        final boolean invoked, final Path stderr) throws Exception {
        final ChildJvm writer = ChildJvm.start(ReplicationMains.Writer.class, stderr, dir.toString(), ports,
                String.valueOf(total), String.valueOf(perSecond), invoked ? "invoked" : "threaded");
        writer.awaitLine("WRITING", 60, TimeUnit.SECONDS);
        return writer;
    }

    private static long lastAcked(final Path dir) {
        try (SpoolQueue queue = open(dir)) {
            return Failover.lastAckedIndex(queue);
        }
    }

    private static long quorumAcked(final Path dir) {
        try (SpoolQueue queue = open(dir)) {
            return Failover.quorumAckedIndex(queue);
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

    /**
     * Keeps at the sinks, without the secret: a burst of ten connections that connect and reset, then connections
     * that connect and send nothing, held until some 16 are open, then the burst again. A sink being restarted
     * refuses connections, which the attacker shrugs off.
     */
    private static final class Attacker implements AutoCloseable {
        private final int[] ports;
        private final Random random;
        private final Thread thread;
        private volatile boolean stop;
        private volatile long connections;

        Attacker(final int[] ports, final long seed) {
            this.ports = ports;
            this.random = new Random(seed + 1);
            this.thread = new Thread(this::attack, "attacker");
            thread.setDaemon(true);
            thread.start();
        }

        private void attack() {
            final ArrayDeque<Socket> idle = new ArrayDeque<>();
            try {
                while (!stop) {
                    final int port = ports[random.nextInt(ports.length)];
                    for (int i = 0; i < 10 && !stop; i++) {
                        try (Socket reset = new Socket(InetAddress.getLoopbackAddress(), port)) {
                            reset.setSoLinger(true, 0);
                            connections++;
                        } catch (IOException e) {
                            // the sink is being restarted
                        }
                    }
                    for (int i = 0; i < 40 && !stop; i++) {
                        try {
                            idle.add(new Socket(InetAddress.getLoopbackAddress(), port));
                            connections++;
                        } catch (IOException e) {
                            // the sink is being restarted
                        }
                        if (idle.size() > 16) {
                            close(idle.poll());
                        }
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                    }
                }
            } finally {
                idle.forEach(Attacker::close);
            }
        }

        private static void close(final Socket socket) {
            try {
                socket.close();
            } catch (IOException e) {
                // the attacker's own socket
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join();
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
