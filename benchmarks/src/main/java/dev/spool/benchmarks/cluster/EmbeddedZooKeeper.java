package dev.spool.benchmarks.cluster;

import org.apache.zookeeper.server.NIOServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A standalone ZooKeeper server in this JVM, on loopback and a directory of the caller's, from the classes of the
 * zookeeper jar: what a firm's ensemble is to the nodes, in one process. Its tick is small enough that a session
 * expires close to its timeout: ZooKeeper checks expiry once a tick.
 */
final class EmbeddedZooKeeper implements AutoCloseable {
    /** Most client connections the server takes: three nodes and a few restarts. */
    private static final int MAX_CONNECTIONS = 64;

    private final ZooKeeperServer server;
    private final NIOServerCnxnFactory factory;
    private final int tickMillis;

    private EmbeddedZooKeeper(final ZooKeeperServer server, final NIOServerCnxnFactory factory,
                              final int tickMillis) {
        this.server = server;
        this.factory = factory;
        this.tickMillis = tickMillis;
    }

    /**
     * @param directory      where the server keeps its snapshots and transaction log; created if needed.
     * @param sessionTimeout the session timeout the nodes ask for, in milliseconds.
     * @return the running server, on an ephemeral port of the loopback address.
     * @throws IOException if it cannot start.
     */
    static EmbeddedZooKeeper start(final Path directory, final int sessionTimeout) throws IOException {
        // a twentieth of the session: expiry lands within 5 % of the timeout; ZooKeeper allows 2 to 20 ticks
        final int tick = Math.max(10, Math.min(200, sessionTimeout / 20));
        Files.createDirectories(directory);
        final ZooKeeperServer server = new ZooKeeperServer(directory.toFile(), directory.toFile(), tick);
        server.setMinSessionTimeout(2 * tick);
        server.setMaxSessionTimeout(Math.max(20 * tick, sessionTimeout));
        final NIOServerCnxnFactory factory = new NIOServerCnxnFactory();
        try {
            factory.configure(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), MAX_CONNECTIONS);
            factory.startup(server);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            factory.shutdown();
            throw new IOException("interrupted while the embedded ZooKeeper server started in " + directory, e);
        } catch (IOException | RuntimeException | Error e) {
            // a server half started keeps a thread that would hold the JVM
            factory.shutdown();
            throw e;
        }
        return new EmbeddedZooKeeper(server, factory, tick);
    }

    /** @return the connect string of the server: {@code 127.0.0.1:<port>}. */
    String connectString() {
        return factory.getLocalAddress().getAddress().getHostAddress() + ":" + factory.getLocalPort();
    }

    /** @return the server's tick, in milliseconds. */
    int tickMillis() {
        return tickMillis;
    }

    /** Stops the server; its directory stays. */
    @Override
    public void close() {
        factory.shutdown();
        server.shutdown();
    }
}
