package dev.spool.failover;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.KeeperException;

import java.net.InetSocketAddress;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;

/**
 * What the fault loop reads of a cluster in ZooKeeper, through a connection of its own that no relay cuts: the
 * current term, the node serving it as primary, and who was promoted in each term.
 */
final class ZooKeeperView implements AutoCloseable {
    private final CuratorFramework client;
    private final Znodes znodes;

    /**
     * The primary of the current term as its znode says.
     *
     * @param nodeId  its id.
     * @param term    its term.
     * @param gateway where its publish gateway listens.
     */
    record Primary(String nodeId, long term, InetSocketAddress gateway) {
    }

    ZooKeeperView(final String connect, final UUID queueId) {
        this.znodes = new Znodes(ClusterNode.DEFAULT_ROOT, queueId);
        this.client = CuratorFrameworkFactory.builder().connectString(connect).sessionTimeoutMs(10_000)
                .connectionTimeoutMs(2_000)
                // a ZooKeeper server the loop stopped costs a read its connection: retried on the others
                .retryPolicy(new ExponentialBackoffRetry(50, 20, 500)).build();
        client.start();
    }

    /** @return the current term, -1 if the cluster has none yet. */
    long term() throws Exception {
        try {
            final byte[] data = client.getData().forPath(znodes.term());
            return Znodes.number(znodes.term(), "term",
                    Znodes.decode(znodes.term(), data, Znodes.TERM_FORMAT, "term").get("term"));
        } catch (KeeperException.NoNodeException e) {
            return -1;
        }
    }

    /** @return the node registered as primary of the current term, or null if there is none. */
    Primary primary() throws Exception {
        final long term = term();
        if (term < 1) {
            return null;
        }
        final Map<String, Map<String, String>> nodes = nodes();
        for (final Map<String, String> node : nodes.values()) {
            if ("PRIMARY".equals(node.get("state")) && Long.toString(term).equals(node.get("term"))) {
                return new Primary(node.get("node"), term, FaultNodeMain.address(node.get("gateway")));
            }
        }
        return null;
    }

    /** @return by node id, the fields of every registered node's znode. */
    Map<String, Map<String, String>> nodes() throws Exception {
        final Map<String, Map<String, String>> nodes = new TreeMap<>();
        try {
            for (final String id : client.getChildren().forPath(znodes.nodes())) {
                try {
                    nodes.put(id, Znodes.decode(znodes.node(id), client.getData().forPath(znodes.node(id)),
                            Znodes.NODE_FORMAT, "node", "state", "term", "gateway"));
                } catch (KeeperException.NoNodeException e) {
                    // its session ended between the listing and the read: it is not registered
                    continue;
                }
            }
        } catch (KeeperException.NoNodeException e) {
            return nodes;
        }
        return nodes;
    }

    /** @return by term, the node that took it in ZooKeeper (the terms znodes). */
    Map<Long, String> promotions() throws Exception {
        final Map<Long, String> promotions = new TreeMap<>();
        for (final String term : client.getChildren().forPath(znodes.terms())) {
            final String path = znodes.termOf(Long.parseLong(term));
            promotions.put(Long.parseLong(term), Znodes.decode(path, client.getData().forPath(path),
                    Znodes.PROMOTION_FORMAT, "node").get("node"));
        }
        return promotions;
    }

    @Override
    public void close() {
        client.close();
    }
}
