package dev.spool.benchmarks.cluster;

import dev.spool.failover.Member;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * An embedded ZooKeeper server and the nodes of one replicated queue, each a {@link NodeMain} in a child JVM on
 * loopback, with a queue directory of its own under the work directory; ack quorum 1 of the followers. Nodes can be
 * killed and started again under the same id and directory.
 */
final class ClusterLayout implements AutoCloseable {
    private final Path work;
    private final EmbeddedZooKeeper zookeeper;
    private final int sessionMillis;
    private final UUID queueId = UUID.randomUUID();
    private final List<Member> members;
    private final Path secretFile;
    private final byte[] secret;
    private final Map<String, NodeProcess> nodes = new LinkedHashMap<>();

    private ClusterLayout(final Path work, final EmbeddedZooKeeper zookeeper, final int sessionMillis,
                          final List<Member> members, final Path secretFile, final byte[] secret) {
        this.work = work;
        this.zookeeper = zookeeper;
        this.sessionMillis = sessionMillis;
        this.members = members;
        this.secretFile = secretFile;
        this.secret = secret;
    }

    /**
     * Starts the ZooKeeper server, then the nodes, all at once.
     *
     * @param work          an empty directory for the server's files, the queues and the nodes' logs.
     * @param count         how many nodes.
     * @param sessionMillis the nodes' ZooKeeper session timeout.
     * @param secret        the shared secret of the nodes' replication and gateways.
     * @return the layout, its nodes starting.
     * @throws IOException if a process or the server cannot start.
     */
    static ClusterLayout start(final Path work, final int count, final int sessionMillis, final byte[] secret)
            throws IOException {
        final Path secretFile = secretFile(work, secret);
        final List<Member> members = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            members.add(Member.of(String.valueOf((char) ('a' + i)), loopback(freePort()), loopback(freePort())));
        }
        final EmbeddedZooKeeper zookeeper = EmbeddedZooKeeper.start(work.resolve("zookeeper"), sessionMillis);
        final ClusterLayout layout = new ClusterLayout(work, zookeeper, sessionMillis, members, secretFile, secret);
        try {
            for (final Member member : members) {
                layout.startNode(member.nodeId());
            }
        } catch (IOException | RuntimeException | Error e) {
            layout.close();
            throw e;
        }
        return layout;
    }

    /**
     * @param work   where the file goes.
     * @param secret the secret.
     * @return a file only this user can read, holding the secret: the nodes read it, so that it is on no command
     * line.
     */
    static Path secretFile(final Path work, final byte[] secret) throws IOException {
        final Path file = work.resolve("secret");
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(file, secret);
        return file;
    }

    /**
     * Starts the node of an id, with its directory as its last process left it.
     *
     * @param id the node's id.
     * @throws IOException if its process cannot start.
     */
    void startNode(final String id) throws IOException {
        final List<String> memberTexts = new ArrayList<>();
        members.forEach(member -> memberTexts.add(member.toString()));
        final List<String> args = List.of("cluster", "id=" + id, "dir=" + directory(id),
                "zookeeper=" + zookeeper.connectString(), "queue=" + queueId, "session=" + sessionMillis,
                "secret=" + secretFile, "members=" + String.join(",", memberTexts));
        nodes.put(id, NodeProcess.start(id, work.resolve(id + ".log"), args));
    }

    /**
     * Waits for a primary: one node that says it is, and only one.
     *
     * @param timeoutMillis how long at most.
     * @return its id.
     * @throws IllegalStateException if none was within the time, or two were.
     */
    String awaitPrimary(final long timeoutMillis) {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            final List<String> primaries = new ArrayList<>();
            nodes.forEach((id, node) -> {
                if (node.state().equals("PRIMARY")) {
                    primaries.add(id);
                }
            });
            if (primaries.size() > 1) {
                throw new IllegalStateException("two nodes say they are the primary: " + primaries + " " + states());
            }
            if (primaries.size() == 1) {
                return primaries.get(0);
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("no primary within " + timeoutMillis + " ms: " + states()
                        + "; the log of node a ends:\n" + nodes.get(members.get(0).nodeId()).logTail());
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /**
     * Waits until every node but one says it follows.
     *
     * @param timeoutMillis how long at most.
     */
    void awaitFollowers(final long timeoutMillis) {
        for (final NodeProcess node : nodes.values()) {
            if (!node.state().equals("PRIMARY")) {
                node.await("FOLLOWER", timeoutMillis, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** @return every node's state, and the primary's term, e.g. {@code a=FOLLOWER b=PRIMARY(term 2) c=DEAD}. */
    String states() {
        final StringBuilder text = new StringBuilder();
        nodes.forEach((id, node) -> text.append(text.length() == 0 ? "" : " ").append(id).append('=')
                .append(node.state()).append(node.state().equals("PRIMARY") ? "(term " + node.term() + ")" : ""));
        return text.toString();
    }

    /**
     * @param id a node's id.
     * @return its process.
     */
    NodeProcess node(final String id) {
        return nodes.get(id);
    }

    /** @return the members, in order. */
    List<Member> members() {
        return members;
    }

    /** @return every member's gateway, in the members' order. */
    List<InetSocketAddress> gateways() {
        final List<InetSocketAddress> gateways = new ArrayList<>();
        members.forEach(member -> gateways.add(member.gateway()));
        return gateways;
    }

    /**
     * @param id a node's id.
     * @return its position among the members.
     */
    int position(final String id) {
        for (int i = 0; i < members.size(); i++) {
            if (members.get(i).nodeId().equals(id)) {
                return i;
            }
        }
        throw new IllegalArgumentException("no member " + id);
    }

    /**
     * @param id a node's id.
     * @return its queue directory.
     */
    Path directory(final String id) {
        return work.resolve("node-" + id);
    }

    /**
     * @param id a node's id.
     * @return how many times its directory was set aside: the sets aside kept beside it.
     */
    int timesSetAside(final String id) {
        final String prefix = directory(id).getFileName() + ".diverged-term-";
        try (var files = Files.list(work)) {
            return (int) files.filter(file -> file.getFileName().toString().startsWith(prefix)).count();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot list " + work, e);
        }
    }

    /**
     * @param id a node's id.
     * @return the last index of its queue, read from its directory; -1 while it has none, or cannot be opened (the
     * node may be creating it).
     */
    long lastIndex(final String id) {
        try (SpoolQueue queue = SpoolQueue.builder(directory(id)).readOnly().open()) {
            return queue.lastIndex();
        } catch (SpoolException | java.io.UncheckedIOException e) {
            return -1;
        }
    }

    /** @return the shared secret. */
    byte[] secret() {
        return secret.clone();
    }

    /** @return the ZooKeeper server's tick, in milliseconds. */
    int tickMillis() {
        return zookeeper.tickMillis();
    }

    /** @return the ZooKeeper server's connect string. */
    String connectString() {
        return zookeeper.connectString();
    }

    /** Stops the nodes, the primary first so that its followers do not elect another, then the server. */
    @Override
    public void close() {
        nodes.values().stream().filter(node -> node.state().equals("PRIMARY")).forEach(NodeProcess::stop);
        nodes.values().forEach(NodeProcess::stop);
        zookeeper.close();
    }

    static InetSocketAddress loopback(final int port) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), port);
    }

    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
