package dev.spool.benchmarks.cluster;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The same replication as a cluster's, without ZooKeeper: a primary (a queue, a replication source to two sinks with
 * an ack quorum of 1, a publish gateway) and two sinks, each a {@link NodeMain} in a child JVM on loopback, as the
 * nodes of a {@link ClusterLayout} are.
 */
final class PlainLayout implements AutoCloseable {
    private final NodeProcess primary;
    private final List<NodeProcess> sinks;
    private final InetSocketAddress gateway;

    private PlainLayout(final NodeProcess primary, final List<NodeProcess> sinks, final InetSocketAddress gateway) {
        this.primary = primary;
        this.sinks = sinks;
        this.gateway = gateway;
    }

    /**
     * Starts the sinks, then the primary, and waits until its source reaches both.
     *
     * @param work       an empty directory for the queues and the processes' logs; it holds the secret's file.
     * @param secretFile the file of the shared secret.
     * @return the running layout.
     * @throws IOException if a process cannot start.
     */
    static PlainLayout start(final Path work, final Path secretFile) throws IOException {
        final int first = ClusterLayout.freePort();
        final int second = ClusterLayout.freePort();
        final int gatewayPort = ClusterLayout.freePort();
        final NodeProcess one = NodeProcess.start("sink-1", work.resolve("sink-1.log"), List.of("sink",
                "dir=" + work.resolve("sink-1"), "port=" + first, "secret=" + secretFile));
        final NodeProcess two = NodeProcess.start("sink-2", work.resolve("sink-2.log"), List.of("sink",
                "dir=" + work.resolve("sink-2"), "port=" + second, "secret=" + secretFile));
        NodeProcess primary = null;
        try {
            one.await(null, 30, TimeUnit.SECONDS);
            two.await(null, 30, TimeUnit.SECONDS);
            final InetSocketAddress a = ClusterLayout.loopback(first);
            final InetSocketAddress b = ClusterLayout.loopback(second);
            primary = NodeProcess.start("primary", work.resolve("primary.log"), List.of("primary",
                    "dir=" + work.resolve("primary"), "port=" + gatewayPort, "secret=" + secretFile,
                    "followers=" + a.getHostString() + ":" + first + "," + b.getHostString() + ":" + second));
            primary.await(null, 30, TimeUnit.SECONDS);
        } catch (IOException | RuntimeException e) {
            if (primary != null) {
                primary.stop();
            }
            one.stop();
            two.stop();
            throw e;
        }
        return new PlainLayout(primary, List.of(one, two), ClusterLayout.loopback(gatewayPort));
    }

    /** @return the primary's gateway. */
    InetSocketAddress gateway() {
        return gateway;
    }

    /** Stops the primary, then the sinks. */
    @Override
    public void close() {
        primary.stop();
        sinks.forEach(NodeProcess::stop);
    }
}
