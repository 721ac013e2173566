package dev.spool.failover;

import dev.spool.queue.SpoolException;
import dev.spool.replication.GatewayLocator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.retry.ExponentialBackoffRetry;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Finds the publish gateway of a cluster's current primary in ZooKeeper, for a
 * {@link dev.spool.replication.PublishClient} built with it: the client asks at every (re)connection, so that it
 * follows the primary after a failover and re-sends what was not committed. It reads a cache of the cluster's
 * znodes that ZooKeeper keeps current, so a call costs no round trip; close it when the clients that use it are
 * closed.
 * <p>
 * The cache's watch tells it when the primary changes: each change of the term or of a node's znode that changes
 * the gateway it names (another node promoted, or none primary of the current term, as when the primary's session
 * ends) counts one {@link #generation()}, which its clients poll on every pass of their calls. A client connected
 * to a primary that lost its place leaves it as soon as ZooKeeper ends that primary's session (the session timeout
 * after it froze or was cut off), and reaches the next one as soon as it is published, even while the old primary's
 * sockets stay open.
 * <pre>{@code
 * try (ZooKeeperGatewayLocator primary = ZooKeeperGatewayLocator.connect("zk1:2181,zk2:2181", queueId);
 *      PublishClient client = PublishClient.builder(primary, 4096).sharedSecret(secret).connect()) {
 *     long sequence = client.publish(bytes, 0, bytes.length, CommitStage.ACKED_BY_QUORUM);
 * }
 * }</pre>
 */
public final class ZooKeeperGatewayLocator implements GatewayLocator, AutoCloseable {
    private final String zookeeper;
    private final Znodes znodes;
    private final CuratorFramework client;
    private final CuratorCache cache;
    /** Counts the changes of the gateway named, seen by the cache's listener; read by the clients' threads. */
    private final AtomicLong generation = new AtomicLong();
    /** The gateway named at the last change, null for none; guarded by this locator. */
    private InetSocketAddress named;

    private ZooKeeperGatewayLocator(final String zookeeper, final UUID queueId, final String root,
            final Duration connectTimeout) {
        ZooKeeperLogging.quiet();
        this.zookeeper = zookeeper;
        this.znodes = new Znodes(root, queueId);
        this.client = CuratorFrameworkFactory.builder().connectString(zookeeper)
                .connectionTimeoutMs((int) connectTimeout.toMillis())
                .retryPolicy(new ExponentialBackoffRetry(50, 5, 1000))
                // the addresses given only, as the nodes do: a client may reach ZooKeeper through a proxy
                .ensembleTracker(false).build();
        client.start();
        CuratorCache started = null;
        try {
            if (!client.blockUntilConnected((int) connectTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new SpoolException("cannot reach ZooKeeper at " + zookeeper + " within " + connectTimeout
                        + " to find the primary of queue " + queueId);
            }
            final CuratorCache built = CuratorCache.build(client, znodes.base());
            started = built;
            final CountDownLatch loaded = new CountDownLatch(1);
            started.listenable().addListener(CuratorCacheListener.builder().forInitialized(loaded::countDown)
                    .forAll((type, before, after) -> changed(built)).build());
            started.start();
            if (!loaded.await(connectTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new SpoolException("could not read " + znodes.base() + " from ZooKeeper at " + zookeeper
                        + " within " + connectTimeout);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            close(started);
            throw new SpoolException("interrupted while connecting to ZooKeeper at " + zookeeper);
        } catch (RuntimeException e) {
            close(started);
            throw e;
        }
        this.cache = started;
    }

    /**
     * @param zookeeper the ZooKeeper connect string of the cluster.
     * @param queueId   the replicated queue's id.
     * @return a locator under the default root {@value ClusterNode#DEFAULT_ROOT}, connected and with its cache
     * loaded, waiting for ZooKeeper at most {@link ClusterNode#DEFAULT_CONNECT_TIMEOUT}.
     * @throws SpoolException naming the connect string if ZooKeeper cannot be reached in that time.
     */
    public static ZooKeeperGatewayLocator connect(final String zookeeper, final UUID queueId) {
        return connect(zookeeper, queueId, ClusterNode.DEFAULT_ROOT, ClusterNode.DEFAULT_CONNECT_TIMEOUT);
    }

    /**
     * @param zookeeper      the ZooKeeper connect string of the cluster.
     * @param queueId        the replicated queue's id.
     * @param root           the root of Spool's znodes, as the nodes were given it.
     * @param connectTimeout how long to wait for ZooKeeper.
     * @return a locator, connected and with its cache loaded.
     * @throws SpoolException naming the connect string if ZooKeeper cannot be reached in time.
     */
    public static ZooKeeperGatewayLocator connect(final String zookeeper, final UUID queueId, final String root,
            final Duration connectTimeout) {
        return new ZooKeeperGatewayLocator(Objects.requireNonNull(zookeeper, "zookeeper"),
                Objects.requireNonNull(queueId, "queueId"), Objects.requireNonNull(root, "root"),
                Objects.requireNonNull(connectTimeout, "connectTimeout"));
    }

    /**
     * @return the gateway of the node that is primary of the cluster's current term.
     * @throws IOException if no node is primary of the current term now: an election is in progress, or too few
     *                     members are alive for one; the client asks again after a back-off.
     */
    @Override
    public InetSocketAddress gateway() throws IOException {
        return gateway(cache);
    }

    /**
     * @return a count of the changes of the gateway {@link #gateway()} names, kept by the watch of the cluster's
     * znodes: it changes when another node becomes primary, or none is primary of the current term; a volatile read.
     */
    @Override
    public long generation() {
        return generation.get();
    }

    /** On the cache's thread, after each change of a znode: counts a change of the gateway named. */
    private synchronized void changed(final CuratorCache from) {
        InetSocketAddress now;
        try {
            now = gateway(from);
        } catch (IOException | RuntimeException e) {
            now = null;
        }
        if (!Objects.equals(now, named)) {
            named = now;
            generation.incrementAndGet();
        }
    }

    private InetSocketAddress gateway(final CuratorCache cache) throws IOException {
        final Optional<ChildData> term = cache.get(znodes.term());
        if (term.isEmpty()) {
            throw new IOException("no cluster of queue " + znodes.base() + " in ZooKeeper at " + zookeeper);
        }
        final String current = Znodes.decode(znodes.term(), term.get().getData(), Znodes.TERM_FORMAT, "term")
                .get("term");
        final String prefix = znodes.nodes() + "/";
        for (final ChildData data : cache.stream().filter(d -> d.getPath().startsWith(prefix)).toList()) {
            final Map<String, String> fields;
            try {
                fields = Znodes.decode(data.getPath(), data.getData(), Znodes.NODE_FORMAT, "state", "term",
                        "gateway");
            } catch (SpoolException e) {
                continue;
            }
            if (NodeState.PRIMARY.name().equals(fields.get("state")) && current.equals(fields.get("term"))) {
                return address(data.getPath(), fields.get("gateway"));
            }
        }
        throw new IOException("no primary of term " + current + " under " + znodes.nodes() + " in ZooKeeper at "
                + zookeeper + ": an election may be in progress");
    }

    private static InetSocketAddress address(final String path, final String text) throws IOException {
        final int colon = text.lastIndexOf(':');
        try {
            return new InetSocketAddress(text.substring(0, colon), Integer.parseInt(text.substring(colon + 1)));
        } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
            throw new IOException("znode " + path + " has gateway=" + text + ", not host:port", e);
        }
    }

    /** Closes the cache and the ZooKeeper connection. */
    @Override
    public void close() {
        close(cache);
    }

    private void close(final CuratorCache started) {
        if (started != null) {
            started.close();
        }
        client.close();
    }
}
