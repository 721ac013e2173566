package dev.spool.failover;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.replication.CommitStage;
import dev.spool.replication.PublishClient;
import net.openhft.chronicle.bytes.Bytes;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Three nodes in child JVMs on a real ZooKeeper server, a client of the cluster publishing at
 * {@link CommitStage#ACKED_BY_QUORUM} throughout, through a {@link ZooKeeperGatewayLocator}: the primary is frozen
 * (SIGSTOP) for three session timeouts. Its sockets stay open; the client must leave it and commit through the
 * next primary within the session timeout plus a second of the freeze, every acknowledged message written once; once
 * thawed (SIGCONT), the old primary rejoins as a follower and holds every acknowledged message. With the client's
 * default liveness timeout, and with one longer than the freeze, where only the locator's notice of the new
 * primary moves it.
 */
class FrozenPrimaryTest extends SpoolTestBase {
    private static final long SESSION_MS = ClusterNode.DEFAULT_SESSION_TIMEOUT.toMillis();
    private static final long AWAIT_NS = TimeUnit.SECONDS.toNanos(90);

    @Test
    void shouldCommitThroughTheNextPrimaryWithinTheSessionTimeoutAndASecondOfAFreeze() throws Exception {
        expectWarning("sent nothing for");
        freezeThePrimary(Duration.ofMillis(PublishClient.DEFAULT_LIVENESS_TIMEOUT_MS));
    }

    /** With a liveness timeout longer than the freeze, only the locator's notice can move the client in time. */
    @Test
    void shouldLeaveAFrozenPrimaryWhenTheLocatorSeesItsSessionEndWithoutALivenessTimeout() throws Exception {
        freezeThePrimary(Duration.ofMinutes(1));
    }

    private void freezeThePrimary(final Duration livenessTimeout) throws Exception {
        expectWarning("org.apache.zookeeper");
        expectWarning("org.apache.curator");
        final UUID queueId = UUID.randomUUID();
        final InetAddress loopback = InetAddress.getLoopbackAddress();
        final String[] ids = {"a", "b", "c"};
        final List<String> members = new ArrayList<>();
        final int[] sinkPorts = new int[ids.length];
        for (int i = 0; i < ids.length; i++) {
            sinkPorts[i] = freePort();
            members.add(Member.of(ids[i], new InetSocketAddress(loopback, sinkPorts[i]),
                    new InetSocketAddress(loopback, freePort())).toString());
        }
        // a tick of 250 ms lets ZooKeeper grant sessions of 500 ms to 5 s
        try (TestingServer zooKeeper = new TestingServer(new InstanceSpec(
                Files.createDirectories(tempDir.resolve("zk")).toFile(), -1, -1, -1, true, -1, 250, -1), true);
             ZooKeeperView view = new ZooKeeperView(zooKeeper.getConnectString(), queueId)) {
            final NodeProcess[] nodes = new NodeProcess[ids.length];
            try {
                for (int i = 0; i < ids.length; i++) {
                    nodes[i] = NodeProcess.start(ids[i], tempDir.resolve(ids[i] + ".err"), (node, term) -> { },
                            List.of(zooKeeper.getConnectString(), queueId.toString(), ids[i],
                                    tempDir.resolve(ids[i]).toString(), String.join(",", members), "1",
                                    Long.toString(SESSION_MS), "127.0.0.1:" + sinkPorts[i]));
                }
                await(() -> primary(view) != null && followers(nodes) == 2, "a primary and two followers", nodes);
                try (ZooKeeperGatewayLocator locator = ZooKeeperGatewayLocator.connect(zooKeeper.getConnectString(),
                        queueId);
                     Publishing stream = new Publishing(locator, livenessTimeout)) {
                    await(() -> stream.commits() >= 50, "50 commits", nodes);
                    final ZooKeeperView.Primary first = primary(view);
                    final NodeProcess frozen = nodes[first.nodeId().charAt(0) - 'a'];
                    frozen.freeze();
                    final long frozeAt = System.nanoTime();
                    try {
                        await(() -> stream.firstCommitAfter(frozeAt) != 0
                                || System.nanoTime() - frozeAt > 3 * TimeUnit.MILLISECONDS.toNanos(SESSION_MS),
                                "a commit after the freeze", nodes);
                        LockSupport.parkNanos(frozeAt + 3 * TimeUnit.MILLISECONDS.toNanos(SESSION_MS) - System.nanoTime());
                    } finally {
                        frozen.thaw();
                    }
                    final long next = stream.firstCommitAfter(frozeAt);
                    final long ms = next == 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(next - frozeAt);
                    System.out.println("liveness timeout " + livenessTimeout.toMillis() + " ms, frozen primary "
                            + first.nodeId() + " for " + 3 * SESSION_MS
                            + " ms: next commit acknowledged " + (next == 0 ? "only after the thaw" : ms + " ms")
                            + " after the freeze (session timeout " + SESSION_MS + " ms)");
                    assertTrue(next != 0 && ms <= SESSION_MS + 1_000, "the next commit came "
                            + (next == 0 ? "not while the primary was frozen" : ms + " ms after the freeze")
                            + ", not within the session timeout of " + SESSION_MS + " ms and a second");
                    await(() -> "FOLLOWER".equals(frozen.state()), "the thawed primary rejoins as a follower", nodes);
                    final int before = stream.commits();
                    await(() -> stream.commits() >= before + 20, "20 more commits", nodes);
                    stream.close();
                    assertEquals(null, stream.failure);
                    final ZooKeeperView.Primary serving = primary(view);
                    final Path primaryDirectory = tempDir.resolve(serving.nodeId());
                    final long last = lastIndex(primaryDirectory);
                    for (final String id : ids) {
                        await(() -> lastIndex(tempDir.resolve(id)) == last, id + " ends where the primary does", nodes);
                        assertCommittedOnce(tempDir.resolve(id), stream.committed(), "on " + id);
                    }
                }
            } finally {
                for (final NodeProcess node : nodes) {
                    if (node != null) {
                        node.close();
                    }
                }
            }
        }
    }

    /** One client publishing unique messages one at a time on its own thread; a commit in doubt is never re-sent. */
    private static final class Publishing implements AutoCloseable {
        private final ZooKeeperGatewayLocator locator;
        private final Duration livenessTimeout;
        private final Thread thread;
        /** Guarded by itself: by index, each payload whose commit the client was told, and when. */
        private final TreeMap<Long, byte[]> committed = new TreeMap<>();
        private final List<Long> commitTimes = new ArrayList<>();
        private volatile boolean stop;
        private volatile String failure;

        Publishing(final ZooKeeperGatewayLocator locator, final Duration livenessTimeout) {
            this.locator = locator;
            this.livenessTimeout = livenessTimeout;
            this.thread = new Thread(this::run, "frozen-primary-stream");
            thread.setDaemon(true);
            thread.start();
        }

        private void run() {
            PublishClient client = null;
            long number = 0;
            while (!stop) {
                try {
                    if (client == null) {
                        client = PublishClient.builder(locator, 1024).sharedSecret(FaultNodeMain.SECRET)
                                .livenessTimeout(livenessTimeout).timeout(Duration.ofSeconds(30)).connect();
                    }
                    final byte[] payload = ("message " + number++ + " ").getBytes(StandardCharsets.US_ASCII);
                    final long index = client.awaitCommit(client.publish(payload, 0, payload.length,
                            CommitStage.ACKED_BY_QUORUM), 30, TimeUnit.SECONDS);
                    if (index < 0) {
                        client.close();
                        client = null;
                        continue;
                    }
                    synchronized (committed) {
                        if (committed.put(index, payload) != null) {
                            failure = "index 0x" + Long.toHexString(index) + " acknowledged twice";
                        }
                        commitTimes.add(System.nanoTime());
                    }
                } catch (UncheckedIOException | SpoolException e) {
                    if (client != null) {
                        client.close();
                        client = null;
                    }
                }
            }
            if (client != null) {
                client.close();
            }
        }

        int commits() {
            synchronized (committed) {
                return committed.size();
            }
        }

        /** @return System.nanoTime() of the first acknowledgement after {@code afterNs}, or 0 if none yet. */
        long firstCommitAfter(final long afterNs) {
            synchronized (committed) {
                for (final long at : commitTimes) {
                    if (at - afterNs > 0) {
                        return at;
                    }
                }
                return 0;
            }
        }

        TreeMap<Long, byte[]> committed() {
            synchronized (committed) {
                return new TreeMap<>(committed);
            }
        }

        @Override
        public void close() throws InterruptedException {
            stop = true;
            thread.join();
        }
    }

    private static ZooKeeperView.Primary primary(final ZooKeeperView view) {
        try {
            return view.primary();
        } catch (Exception e) {
            return null;
        }
    }

    private static int followers(final NodeProcess[] nodes) {
        int followers = 0;
        for (final NodeProcess node : nodes) {
            followers += "FOLLOWER".equals(node.state()) ? 1 : 0;
        }
        return followers;
    }

    /** Every acknowledged message is at its index with its bytes, and no message is in the queue twice. */
    private static void assertCommittedOnce(final Path directory, final TreeMap<Long, byte[]> committed,
            final String where) {
        final Bytes<?> bytes = Bytes.allocateElasticOnHeap();
        final Map<Long, byte[]> expected = new TreeMap<>(committed);
        final Set<String> seen = new HashSet<>();
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open();
             ExcerptTailer tailer = queue.createTailer()) {
            for (long index = tailer.read(bytes); index >= 0; index = tailer.read(bytes)) {
                final byte[] read = bytes.toByteArray();
                assertTrue(seen.add(new String(read, StandardCharsets.US_ASCII)), where + ": '"
                        + new String(read, StandardCharsets.US_ASCII) + "' written twice, again at 0x"
                        + Long.toHexString(index));
                final byte[] acknowledged = expected.remove(index);
                if (acknowledged != null) {
                    assertArrayEquals(acknowledged, read, where + ": index 0x" + Long.toHexString(index));
                }
                bytes.clear();
            }
        } finally {
            bytes.releaseLast();
        }
        assertEquals(Map.of(), expected, where + ": acknowledged but missing");
    }

    private static long lastIndex(final Path directory) {
        if (!SpoolQueue.exists(directory)) {
            return -2;
        }
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open()) {
            return queue.lastIndex();
        } catch (RuntimeException e) {
            return -2;
        }
    }

    private static void await(final BooleanSupplier condition, final String what, final NodeProcess[] nodes) {
        final long deadline = System.nanoTime() + AWAIT_NS;
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                final StringBuilder states = new StringBuilder();
                for (final NodeProcess node : nodes) {
                    states.append(node.nodeId()).append('=').append(node.state()).append('/').append(node.term())
                            .append(' ');
                }
                fail("timed out waiting for " + what + "; nodes " + states);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
        }
    }

    private static int freePort() throws java.io.IOException {
        return Ports.free();
    }
}
