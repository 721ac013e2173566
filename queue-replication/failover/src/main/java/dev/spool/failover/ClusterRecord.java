package dev.spool.failover;

import dev.spool.queue.SpoolException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The cluster's record in ZooKeeper as a starting node finds or makes it: the members and ack quorum every node must
 * share, the term, the parents of the promotions and rebuilding marks, and this node's id, free of a live process.
 */
final class ClusterRecord {
    private static final Logger LOG = LoggerFactory.getLogger(ClusterRecord.class);

    private final NodeConfig config;
    private final Znodes znodes;
    private final CuratorFramework client;

    ClusterRecord(final NodeConfig config, final Znodes znodes, final CuratorFramework client) {
        this.config = config;
        this.znodes = znodes;
        this.client = client;
    }

    /**
     * The first node writes the members and the ack quorum; every later node must have been given the same, or it
     * is refused, naming the znode and both values.
     */
    void checkClusterConfig() {
        final byte[] mine = Znodes.encode(Znodes.CONFIG_FORMAT, configFields());
        try {
            client.create().creatingParentsIfNeeded().forPath(znodes.config(), mine);
        } catch (KeeperException.NodeExistsException e) {
            final Map<String, String> theirs = Znodes.decode(znodes.config(), read(znodes.config(), null),
                    Znodes.CONFIG_FORMAT, "queueId", "members", "ackQuorum");
            if (!theirs.equals(configFields())) {
                throw new SpoolException("node " + config.nodeId() + " is configured with " + configFields()
                        + " but the cluster of queue " + config.queueId() + " at " + znodes.config() + " has "
                        + theirs + ": every node must be given the same members and ack quorum");
            }
        } catch (Exception e) {
            throw zooKeeperFailure("create " + znodes.config(), e);
        }
    }

    private Map<String, String> configFields() {
        final Map<String, String> fields = new LinkedHashMap<>();
        fields.put("queueId", config.queueId().toString());
        final List<String> members = new ArrayList<>();
        config.members().forEach(member -> members.add(member.toString()));
        fields.put("members", String.join(",", members));
        fields.put("ackQuorum", Integer.toString(config.ackQuorum()));
        return fields;
    }

    void ensureTerm() {
        try {
            client.create().creatingParentsIfNeeded().forPath(znodes.term(),
                    Znodes.encode(Znodes.TERM_FORMAT, Map.of("term", "0")));
        } catch (KeeperException.NodeExistsException e) {
            final Map<String, String> term = Znodes.decode(znodes.term(), read(znodes.term(), null),
                    Znodes.TERM_FORMAT, "term");
            Znodes.number(znodes.term(), "term", term.get("term"));
        } catch (Exception e) {
            throw zooKeeperFailure("create " + znodes.term(), e);
        }
        for (final String parent : List.of(znodes.terms(), znodes.rebuildings())) {
            try {
                client.create().forPath(parent);
            } catch (KeeperException.NodeExistsException e) {
                // another node made it
                LOG.trace("{} exists", parent);
            } catch (Exception e) {
                throw zooKeeperFailure("create " + parent, e);
            }
        }
    }

    long currentTerm() {
        final Map<String, String> term = Znodes.decode(znodes.term(), read(znodes.term(), null), Znodes.TERM_FORMAT,
                "term");
        return Znodes.number(znodes.term(), "term", term.get("term"));
    }

    /**
     * A node id is one process's: a znode of this id left by a process that died goes when its session expires, so
     * it is awaited for a session timeout and a half; one still there belongs to a live node, and this one is
     * refused.
     */
    void awaitIdFree() {
        final String path = znodes.node(config.nodeId());
        final long deadline = config.nanoClock().nanoTime() + config.sessionTimeout().toNanos() * 3 / 2;
        try {
            Stat stat = client.checkExists().forPath(path);
            while (stat != null && config.nanoClock().nanoTime() - deadline < 0) {
                Thread.sleep(20);
                stat = client.checkExists().forPath(path);
            }
            if (stat != null) {
                throw new SpoolException("node id " + config.nodeId() + " is registered at " + path + " by another"
                        + " live process (ZooKeeper session 0x" + Long.toHexString(stat.getEphemeralOwner())
                        + "): two nodes of one cluster cannot share an id");
            }
        } catch (SpoolException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SpoolException("interrupted while node " + config.nodeId() + " waited for " + path);
        } catch (Exception e) {
            throw zooKeeperFailure("read " + path, e);
        }
    }

    private byte[] read(final String path, final Stat stat) {
        try {
            return stat == null ? client.getData().forPath(path) : client.getData().storingStatIn(stat).forPath(path);
        } catch (Exception e) {
            throw zooKeeperFailure("read " + path, e);
        }
    }

    private SpoolException zooKeeperFailure(final String what, final Exception e) {
        return new SpoolException("node " + config.nodeId() + " could not " + what + " on ZooKeeper at "
                + config.zookeeper() + ": " + e, e);
    }
}
