package dev.spool.failover;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.Soak;
import dev.spool.queue.SpoolTestBase;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

import static dev.spool.failover.QueueChecks.assertCommittedOn;
import static dev.spool.failover.QueueChecks.assertEveryMessageOnce;
import static dev.spool.failover.QueueChecks.assertIdentical;
import static dev.spool.failover.QueueChecks.lastIndex;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Cluster nodes in child JVMs on a 3-server ZooKeeper ensemble, each node reaching each ZooKeeper server and each
 * other node's sink through a relay the test can cut, under a steady stream of publishes at ACKED_BY_QUORUM from
 * this JVM to whichever node is primary, by several clients at once (each its own id), so that what a deposed primary
 * appended in its last moments differs from what its successor writes at the same indices. At random moments
 * (seeded; the seed is printed and {@code -Dspool.fault.seed} replays it): kill -9 the primary, kill -9 a follower
 * (each restarted a while after), freeze the primary (SIGSTOP) past its session timeout until another is elected and
 * let it go on (SIGCONT) with what its sockets hold, cut the primary off from ZooKeeper but not from its followers,
 * cut it off from its followers but not from ZooKeeper, stop a ZooKeeper server and restart it. After every fault,
 * once a primary serves again: every index a client was told was committed is on that primary with the same bytes;
 * no two nodes were primary in one term (by the nodes' own reports and by ZooKeeper's record of each term); with
 * every node up, the followers converge byte for byte to the primary at every index, and every acknowledged message
 * is on every node at its index; no message is written twice (a client sends a message again after a failover with
 * its id and sequence, and the new primary writes a re-send once).
 */
class ClusterFaultTest extends SpoolTestBase {
    private static final long SESSION_MS = 1500;
    private static final int ZOOKEEPER_SERVERS = 3;
    private static final long AWAIT_NS = TimeUnit.SECONDS.toNanos(60);

    /** The faults the loop injects; a killed node is restarted as a step of its own fault. */
    enum Fault {
        KILL_PRIMARY, KILL_FOLLOWER, FREEZE_PRIMARY, CUT_PRIMARY_FROM_ZOOKEEPER, CUT_PRIMARY_FROM_FOLLOWERS,
        STOP_A_ZOOKEEPER_SERVER
    }

    @Test
    void shouldKeepEveryNodeIdenticalAtEveryIndexThroughFrozenAndKilledPrimariesUnderThreePublishers()
            throws Exception {
        new Loop(3, 1, 3, List.of(Fault.FREEZE_PRIMARY, Fault.FREEZE_PRIMARY, Fault.KILL_PRIMARY)).run(3);
    }

    @Test
    @Tag("slow")
    void shouldLoseNoAcknowledgedCommitAndElectOnePrimaryPerTermThroughFaultsOfThreeNodes() throws Exception {
        new Loop(3, 1, 3, List.of(Fault.values())).run(Soak.count(6, 100));
    }

    @Test
    @Tag("slow")
    void shouldLoseNoAcknowledgedCommitAndElectOnePrimaryPerTermThroughFaultsOfTwoNodes() throws Exception {
        new Loop(2, 1, 3, List.of(Fault.values())).run(Soak.count(6, 100));
    }

    /** One run of the loop: the ensemble, the relays, the nodes, the stream, and what was seen. */
    private final class Loop {
        private final int count;
        private final int ackQuorum;
        private final int publishers;
        /** The faults drawn from, each once per round, in a shuffled order. */
        private final List<Fault> kinds;
        private final long seed = Long.getLong("spool.fault.seed", System.nanoTime());
        private final Random random = new Random(seed);
        private final UUID queueId = UUID.randomUUID();
        private final List<InstanceSpec> specs = new ArrayList<>();
        private final String[] ids;
        private final Path[] directories;
        private final int[] sinkPorts;
        private final Relay[][] zooKeeperRelays;
        private final Relay[] replicationRelays;
        private final NodeProcess[] nodes;
        private final List<Member> members = new ArrayList<>();
        /** By term, the node that printed itself PRIMARY in it. */
        private final Map<Long, String> primaryOfTerm = new ConcurrentHashMap<>();
        private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
        private final Map<String, List<Long>> recoveries = new TreeMap<>();
        private TestingCluster zooKeeper;
        private ZooKeeperView view;
        private FaultPublisher publisher;

        Loop(final int count, final int ackQuorum, final int publishers, final List<Fault> kinds) {
            this.count = count;
            this.ackQuorum = ackQuorum;
            this.publishers = publishers;
            this.kinds = kinds;
            this.ids = new String[count];
            this.directories = new Path[count];
            this.sinkPorts = new int[count];
            this.zooKeeperRelays = new Relay[count][ZOOKEEPER_SERVERS];
            this.replicationRelays = new Relay[count];
            this.nodes = new NodeProcess[count];
        }

        void run(final int faults) throws Exception {
            // ZooKeeper's servers and clients log the connections this test breaks on purpose
            expectWarning("org.apache.zookeeper");
            expectWarning("org.apache.curator");
            // a frozen or cut-off primary sends its clients nothing: they declare it dead and ask the locator again
            expectWarning("past the client's liveness timeout");
            System.out.println("fault loop: seed " + seed + ", " + count + " nodes, ack quorum " + ackQuorum + ", "
                    + publishers + " publishers, " + faults + " faults of " + kinds + ", session timeout " + SESSION_MS
                    + " ms");
            try {
                start();
                final List<Fault> deck = new ArrayList<>();
                for (int fault = 0; fault < faults; fault++) {
                    if (deck.isEmpty()) {
                        deck.addAll(kinds);
                        Collections.shuffle(deck, random);
                    }
                    inject(fault, deck.remove(0));
                }
                finish();
            } catch (AssertionError | Exception e) {
                for (int i = 0; i < count; i++) {
                    System.out.println("node " + ids[i] + (nodes[i] == null ? " (down)" : " (" + nodes[i].state()
                            + " term " + nodes[i].term() + ")") + ", its standard error ends:\n"
                            + ChildJvm.tail(tempDir.resolve(ids[i] + ".err"), 20_000));
                }
                throw new AssertionError("fault loop, seed " + seed + " (-Dspool.fault.seed=" + seed + "): "
                        + e.getMessage(), e);
            } finally {
                stop();
            }
        }

        private void start() throws Exception {
            for (int s = 0; s < ZOOKEEPER_SERVERS; s++) {
                // a tickTime of 100 ms lets a session timeout be 200 ms to 2 s
                specs.add(new InstanceSpec(Files.createDirectories(tempDir.resolve("zk" + s)).toFile(), -1, -1, -1,
                        true, s + 1, 100, -1));
            }
            zooKeeper = new TestingCluster(specs);
            zooKeeper.start();
            final InetAddress loopback = InetAddress.getLoopbackAddress();
            for (int i = 0; i < count; i++) {
                ids[i] = String.valueOf((char) ('a' + i));
                directories[i] = tempDir.resolve(ids[i]);
                sinkPorts[i] = freePort();
                replicationRelays[i] = new Relay(sinkPorts[i], ids[i] + "-sink");
                for (int s = 0; s < ZOOKEEPER_SERVERS; s++) {
                    zooKeeperRelays[i][s] = new Relay(specs.get(s).getPort(), ids[i] + "-zk" + s);
                }
                members.add(Member.of(ids[i], new InetSocketAddress(loopback, replicationRelays[i].port()),
                        new InetSocketAddress(loopback, freePort())));
            }
            view = new ZooKeeperView(zooKeeper.getConnectString(), queueId);
            for (int i = 0; i < count; i++) {
                startNode(i);
            }
            final long started = System.nanoTime();
            publisher = new FaultPublisher(view, seed + 1, publishers);
            final long first = awaitCommitAfter(started, "the first commit");
            System.out.println("first commit acknowledged " + millis(first - started) + " ms after the stream began,"
                    + " primary " + awaitPrimary());
        }

        private void startNode(final int i) throws IOException {
            final List<String> connect = new ArrayList<>();
            for (final Relay relay : zooKeeperRelays[i]) {
                connect.add("127.0.0.1:" + relay.port());
            }
            final List<String> memberTexts = new ArrayList<>();
            members.forEach(member -> memberTexts.add(member.toString()));
            nodes[i] = NodeProcess.start(ids[i], tempDir.resolve(ids[i] + ".err"), this::primaryPrinted,
                    List.of(String.join(",", connect), queueId.toString(), ids[i], directories[i].toString(),
                            String.join(",", memberTexts), Integer.toString(ackQuorum), Long.toString(SESSION_MS),
                            "127.0.0.1:" + sinkPorts[i]));
        }

        private void primaryPrinted(final String nodeId, final long term) {
            final String before = primaryOfTerm.putIfAbsent(term, nodeId);
            if (before != null && !before.equals(nodeId)) {
                violations.add("nodes " + before + " and " + nodeId + " were both primary in term " + term);
            }
        }

        private void inject(final int fault, final Fault kind) throws Exception {
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200 + random.nextInt(800)));
            final ZooKeeperView.Primary before = awaitPrimary();
            final int primary = indexOf(before.nodeId());
            int killed = -1;
            String what = kind + " (" + before.nodeId() + " primary of term " + before.term();
            // the time of each fault is taken once it has struck: the node is dead, the relays or the server down
            final long at;
            long from = 0;
            switch (kind) {
                case KILL_PRIMARY -> {
                    killed = kill(primary);
                    at = System.nanoTime();
                }
                case KILL_FOLLOWER -> {
                    killed = follower(primary);
                    what += ", follower " + ids[killed];
                    kill(killed);
                    at = System.nanoTime();
                }
                case FREEZE_PRIMARY -> {
                    nodes[primary].freeze();
                    at = System.nanoTime();
                    try {
                        await(() -> laterPrimary(before.term()), "a primary after term " + before.term() + " while "
                                + before.nodeId() + " is frozen");
                        // the successor writes meanwhile what the frozen one's sockets may hold too, at the same
                        // indices: the clients re-send there in another order than the frozen primary received
                        final int moreMs = random.nextInt(500);
                        what += ", thawed " + moreMs + " ms after its successor's election";
                        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(moreMs));
                    } finally {
                        nodes[primary].thaw();
                    }
                    from = System.nanoTime();
                }
                case CUT_PRIMARY_FROM_ZOOKEEPER -> {
                    Arrays.stream(zooKeeperRelays[primary]).forEach(Relay::block);
                    at = System.nanoTime();
                    await(() -> laterPrimary(before.term()), "a primary after term " + before.term());
                    // until its session ends, the primary cut off may still commit: count from its successor
                    from = System.nanoTime();
                    Arrays.stream(zooKeeperRelays[primary]).forEach(Relay::unblock);
                }
                case CUT_PRIMARY_FROM_FOLLOWERS -> {
                    for (int i = 0; i < count; i++) {
                        if (i != primary) {
                            replicationRelays[i].block();
                        }
                    }
                    at = System.nanoTime();
                    final int cutMs = 300 + random.nextInt(1200);
                    what += ", for " + cutMs + " ms";
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(cutMs));
                    Arrays.stream(replicationRelays).forEach(Relay::unblock);
                }
                case STOP_A_ZOOKEEPER_SERVER -> {
                    final InstanceSpec server = specs.get(random.nextInt(ZOOKEEPER_SERVERS));
                    final int downMs = 300 + random.nextInt(1200);
                    what += ", server " + server.getServerId() + " for " + downMs + " ms";
                    assertTrue(zooKeeper.killServer(server), "server " + server.getServerId() + " stopped");
                    at = System.nanoTime();
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(downMs));
                    assertTrue(zooKeeper.restartServer(server), "server " + server.getServerId() + " restarted");
                }
                default -> throw new IllegalStateException("fault " + kind);
            }
            if (killed >= 0 && count - 1 <= ackQuorum) {
                // too few followers are left to commit anything: the node comes back first
                if (killed == primary) {
                    await(() -> laterPrimary(before.term()), "a primary after term " + before.term());
                }
                restart(killed);
                killed = -1;
            }
            recovered("fault " + fault + ": " + what + ")", kind.name(), at, from == 0 ? at : from);
            if (killed >= 0) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200 + random.nextInt(800)));
                final long restartedAt = System.nanoTime();
                restart(killed);
                recovered("fault " + fault + ": restart " + ids[killed], "RESTART", restartedAt, restartedAt);
            }
        }

        /**
         * @param at   when the fault struck.
         * @param from the first commit published after this counts.
         */
        private void recovered(final String what, final String kind, final long at, final long from)
                throws Exception {
            final long commit = awaitCommitAfter(from, "a commit after " + what);
            final ZooKeeperView.Primary primary = awaitPrimary();
            recoveries.computeIfAbsent(kind, k -> new ArrayList<>()).add(commit - at);
            System.out.println(what + ": next commit acknowledged after " + millis(commit - at) + " ms; primary "
                    + primary.nodeId() + " of term " + primary.term());
            check(what);
        }

        /** The checks after a fault, once a primary serves again; the convergence only with every node up. */
        private void check(final String when) throws Exception {
            assertEquals(null, publisher.failure(), when);
            assertEquals(List.of(), violations, when);
            final Map<Long, String> promotions = view.promotions();
            primaryOfTerm.forEach((term, node) -> assertEquals(promotions.get(term), node,
                    when + ": node " + node + " printed itself primary of term " + term
                            + ", which ZooKeeper records as taken by " + promotions.get(term)));
            final TreeMap<Long, byte[]> committed = publisher.committed();
            final ZooKeeperView.Primary primary = awaitPrimary();
            assertCommittedOn(directories[indexOf(primary.nodeId())], committed, when + ", on primary "
                    + primary.nodeId());
            for (final NodeProcess node : nodes) {
                if (node == null) {
                    return;
                }
                assertTrue(!"EXITED".equals(node.state()), when + ": node " + node.nodeId() + " exited");
            }
            assertConverged(when);
        }

        /**
         * Pauses the stream until every follower holds the primary's queue, byte for byte. The primary is read
         * again on each look: a fault's aftermath (a session that a stopped server's clients could not renew in
         * time) may still elect another.
         */
        private void assertConverged(final String when) throws Exception {
            assertTrue(publisher.pause(), when + ": the message in flight was neither committed nor given up");
            try {
                final int[] primary = new int[1];
                await(() -> {
                    final ZooKeeperView.Primary serving = view.primary();
                    if (serving == null) {
                        return false;
                    }
                    primary[0] = indexOf(serving.nodeId());
                    final long last = lastIndex(directories[primary[0]]);
                    if (last < -1) {
                        return false;
                    }
                    for (int i = 0; i < count; i++) {
                        if (i != primary[0] && (!"FOLLOWER".equals(nodes[i].state())
                                || lastIndex(directories[i]) != last)) {
                            return false;
                        }
                    }
                    return true;
                }, "every follower ends where the primary does");
                final Path primaryDirectory = directories[primary[0]];
                assertCommittedOn(primaryDirectory, publisher.committed(), when + ", on primary " + ids[primary[0]]);
                final TreeMap<Long, byte[]> committed = publisher.committed();
                for (int i = 0; i < count; i++) {
                    if (i != primary[0]) {
                        assertIdentical(primaryDirectory, directories[i], when + ", " + ids[i] + " against primary "
                                + ids[primary[0]]);
                        assertCommittedOn(directories[i], committed, when + ", on follower " + ids[i]);
                    }
                }
                assertEveryMessageOnce(primaryDirectory, when);
            } finally {
                publisher.resume();
            }
        }

        private void finish() throws Exception {
            final String when = "the end";
            check(when);
            publisher.close();
            final ZooKeeperView.Primary primary = awaitPrimary();
            final int p = indexOf(primary.nodeId());
            final TreeMap<Long, byte[]> committed = publisher.committed();
            for (int i = 0; i < count; i++) {
                assertCommittedOn(directories[i], committed, when + ", on " + ids[i]);
            }
            final long written = assertEveryMessageOnce(directories[p], when);
            long setAside;
            try (Stream<Path> files = Files.list(tempDir)) {
                setAside = files.filter(file -> file.getFileName().toString().contains(".diverged-term-")).count();
            }
            System.out.println("fault loop done: seed " + seed + ", " + count + " nodes; " + publisher.sent()
                    + " messages sent, " + committed.size() + " acknowledged, " + publisher.inDoubt()
                    + " in doubt (never re-sent), " + written + " in the queue (so " + (written - committed.size())
                    + " of those in doubt were written), " + primaryOfTerm.size() + " terms, " + setAside
                    + " directories set aside");
            recoveries.forEach((kind, times) -> {
                final List<Long> sorted = new ArrayList<>(times);
                Collections.sort(sorted);
                System.out.println("  " + kind + ": " + sorted.size() + " times, next commit after p50 "
                        + millis(sorted.get(sorted.size() / 2)) + " ms, max " + millis(sorted.get(sorted.size() - 1))
                        + " ms");
            });
        }

        private void stop() throws Exception {
            if (publisher != null) {
                publisher.close();
            }
            for (final NodeProcess node : nodes) {
                if (node != null) {
                    node.close();
                }
            }
            for (int i = 0; i < count; i++) {
                if (replicationRelays[i] != null) {
                    replicationRelays[i].close();
                }
                for (final Relay relay : zooKeeperRelays[i]) {
                    if (relay != null) {
                        relay.close();
                    }
                }
            }
            if (view != null) {
                view.close();
            }
            if (zooKeeper != null) {
                zooKeeper.close();
            }
        }

        private int kill(final int node) throws InterruptedException {
            nodes[node].kill();
            nodes[node] = null;
            return node;
        }

        private void restart(final int node) throws Exception {
            startNode(node);
            await(() -> "FOLLOWER".equals(nodes[node].state()), "restarted node " + ids[node] + " follows");
        }

        private int follower(final int primary) {
            final List<Integer> followers = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                if (i != primary && nodes[i] != null) {
                    followers.add(i);
                }
            }
            return followers.get(random.nextInt(followers.size()));
        }

        private boolean laterPrimary(final long term) throws Exception {
            final ZooKeeperView.Primary primary = view.primary();
            return primary != null && primary.term() > term;
        }

        private ZooKeeperView.Primary awaitPrimary() throws Exception {
            final ZooKeeperView.Primary[] found = new ZooKeeperView.Primary[1];
            await(() -> (found[0] = view.primary()) != null, "a primary");
            return found[0];
        }

        private long awaitCommitAfter(final long at, final String what) throws Exception {
            final long[] commit = new long[1];
            await(() -> (commit[0] = publisher.firstCommitAfter(at)) != 0, what);
            return commit[0];
        }

        private int indexOf(final String nodeId) {
            return nodeId.charAt(0) - 'a';
        }

        private void await(final Condition condition, final String what) throws Exception {
            final long deadline = System.nanoTime() + AWAIT_NS;
            while (!condition.holds()) {
                if (System.nanoTime() - deadline > 0) {
                    final StringBuilder states = new StringBuilder();
                    for (int i = 0; i < count; i++) {
                        states.append(ids[i]).append('=').append(nodes[i] == null ? "down" : nodes[i].state() + "/"
                                + nodes[i].term()).append(i + 1 < count ? ", " : "");
                    }
                    fail("timed out after " + TimeUnit.NANOSECONDS.toSeconds(AWAIT_NS) + " s waiting for " + what
                            + "; nodes " + states + "; ZooKeeper " + view.nodes());
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2));
            }
        }
    }

    /** A condition the loop awaits, which may read ZooKeeper or a queue. */
    @FunctionalInterface
    private interface Condition {
        boolean holds() throws Exception;
    }

    private static long millis(final long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }

    private static int freePort() throws IOException {
        return Ports.free();
    }
}
