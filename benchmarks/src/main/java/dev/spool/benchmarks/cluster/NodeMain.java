package dev.spool.benchmarks.cluster;

import dev.spool.failover.ClusterNode;
import dev.spool.failover.Member;
import dev.spool.failover.NodeState;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.PublishGateway;
import dev.spool.replication.ReplicationSink;
import dev.spool.replication.ReplicationSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * One node in a child JVM, until its standard input says {@code stop} or ends (the parent is gone), or it is
 * killed. Arguments are {@code key=value}; the first is the mode:
 * <ul>
 *   <li>{@code cluster}: a {@link ClusterNode} ({@code id}, {@code dir}, {@code zookeeper}, {@code queue},
 *   {@code session} in ms, {@code secret} a file, {@code members} as {@code id@host:port/host:port,...}); prints
 *   {@code NODE <id> <state> <term>} whenever its state or term changes;</li>
 *   <li>{@code sink}: a {@link ReplicationSink} on {@code port}, into {@code dir}; prints {@code READY sink};</li>
 *   <li>{@code primary}: a queue in {@code dir}, a {@link ReplicationSource} to the sinks at {@code followers}
 *   ({@code host:port,...}) with an ack quorum of 1, and a {@link PublishGateway} on {@code port}; prints
 *   {@code READY primary} once the source reaches every sink.</li>
 * </ul>
 * A node that cannot start prints {@code FAILED <why>} and exits with 1.
 */
public final class NodeMain {
    /** What a node prints first on a line of its state. */
    static final String NODE = "NODE";
    /** What a plain sink or primary prints once it serves. */
    static final String READY = "READY";
    /** What a node prints when it cannot start. */
    static final String FAILED = "FAILED";

    private NodeMain() {
    }

    /**
     * @param args the mode, then {@code key=value} settings.
     */
    public static void main(final String[] args) {
        final Map<String, String> settings = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            settings.put(args[i].substring(0, args[i].indexOf('=')), args[i].substring(args[i].indexOf('=') + 1));
        }
        final CountDownLatch stop = new CountDownLatch(1);
        final Thread stdin = new Thread(() -> awaitStop(stop), "node-stdin");
        stdin.setDaemon(true);
        stdin.start();
        try {
            switch (args[0]) {
                case "cluster" -> cluster(settings, stop);
                case "sink" -> sink(settings, stop);
                case "primary" -> primary(settings, stop);
                default -> throw new IllegalArgumentException("mode " + args[0] + " is none of cluster, sink, primary");
            }
        } catch (RuntimeException e) {
            System.out.println(FAILED + " " + e);
            e.printStackTrace();
            System.exit(1);
        }
        System.exit(0);
    }

    private static void cluster(final Map<String, String> settings, final CountDownLatch stop) {
        final String id = settings.get("id");
        final ClusterNode.Builder builder = ClusterNode.builder(settings.get("zookeeper"),
                        UUID.fromString(settings.get("queue")), id, Path.of(settings.get("dir")))
                .ackQuorum(1)
                .sessionTimeout(Duration.ofMillis(Long.parseLong(settings.get("session"))))
                .sharedSecret(secret(settings));
        for (final String member : settings.get("members").split(",")) {
            builder.member(member(member));
        }
        try (ClusterNode node = builder.start()) {
            NodeState state = null;
            long term = Long.MIN_VALUE;
            while (stop.getCount() > 0) {
                final NodeState now = node.state();
                final long termNow = node.term();
                if (now != state || termNow != term) {
                    state = now;
                    term = termNow;
                    System.out.println(NODE + " " + id + " " + now + " " + termNow);
                }
                LockSupport.parkNanos(1_000_000);
            }
        }
    }

    private static void sink(final Map<String, String> settings, final CountDownLatch stop) {
        try (ReplicationSink sink = ReplicationSink.builder(Path.of(settings.get("dir")))
                .bindAddress(InetAddress.getLoopbackAddress()).port(Integer.parseInt(settings.get("port")))
                .sharedSecret(secret(settings)).start()) {
            System.out.println(READY + " sink " + sink.address().getPort());
            awaitQuietly(stop);
        }
    }

    private static void primary(final Map<String, String> settings, final CountDownLatch stop) {
        final List<InetSocketAddress> followers = new ArrayList<>();
        for (final String follower : settings.get("followers").split(",")) {
            followers.add(address(follower));
        }
        try (SpoolQueue queue = SpoolQueue.builder(Path.of(settings.get("dir"))).openOrCreate();
             ReplicationSource source = ReplicationSource.builder(queue, followers.get(0),
                             followers.subList(1, followers.size()).toArray(new InetSocketAddress[0]))
                     .ackQuorum(1).sharedSecret(secret(settings)).start();
             PublishGateway gateway = PublishGateway.builder(queue, source)
                     .bindAddress(InetAddress.getLoopbackAddress()).port(Integer.parseInt(settings.get("port")))
                     .sharedSecret(secret(settings)).start()) {
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (source.connectedReplicas() < followers.size()) {
                if (System.nanoTime() - deadline > 0) {
                    throw new IllegalStateException("the source of " + queue.directory() + " reached "
                            + source.connectedReplicas() + " of its " + followers.size() + " sinks in 30 s");
                }
                LockSupport.parkNanos(1_000_000);
            }
            System.out.println(READY + " primary " + gateway.address().getPort());
            awaitQuietly(stop);
        }
    }

    /** @return a member as the config znode writes it: {@code id@host:port/host:port}. */
    static Member member(final String text) {
        final int at = text.indexOf('@');
        final int slash = text.indexOf('/', at);
        return Member.of(text.substring(0, at), address(text.substring(at + 1, slash)),
                address(text.substring(slash + 1)));
    }

    private static InetSocketAddress address(final String hostPort) {
        final int colon = hostPort.lastIndexOf(':');
        return new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    private static byte[] secret(final Map<String, String> settings) {
        try {
            return Files.readAllBytes(Path.of(settings.get("secret")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the shared secret from " + settings.get("secret"), e);
        }
    }

    private static void awaitStop(final CountDownLatch stop) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
            String line;
            do {
                line = in.readLine();
            } while (line != null && !line.equals("stop"));
        } catch (IOException e) {
            // the parent is gone: stop as if it said so
            System.err.println("node: standard input failed: " + e);
        } finally {
            stop.countDown();
        }
    }

    private static void awaitQuietly(final CountDownLatch stop) {
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
