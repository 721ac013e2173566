package dev.spool.failover;

import dev.spool.queue.SpoolException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.zookeeper.KeeperException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.Map;

/**
 * A node's {@code rebuilding/<id>} znode: created before the node sets its directory aside or joins empty, removed
 * once it holds what its primary held when it connected; while it exists the node stands in no election.
 */
final class RebuildingMark {
    private static final Logger LOG = LoggerFactory.getLogger(RebuildingMark.class);

    private final CuratorFramework client;
    private final String path;
    private final String nodeId;
    /** True from this node's creation of the znode until its deletion, before the cache shows either. */
    private volatile boolean marked;

    RebuildingMark(final CuratorFramework client, final Znodes znodes, final String nodeId) {
        this.client = client;
        this.path = znodes.rebuilding(nodeId);
        this.nodeId = nodeId;
    }

    String path() {
        return path;
    }

    /**
     * @param cache the node's cache of its znodes, or null before it has one.
     * @return true while the znode exists, as this node wrote it or the cache shows it (left by an earlier run).
     */
    boolean isMarked(final CuratorCache cache) {
        return marked || cache != null && cache.get(path).isPresent();
    }

    /**
     * @param why the reason, kept in the znode for an operator.
     * @throws SpoolException naming the znode, if ZooKeeper refuses.
     */
    void mark(final String why) {
        try {
            client.create().forPath(path, Znodes.encode(Znodes.REBUILDING_FORMAT, Map.of("why", why)));
        } catch (KeeperException.NodeExistsException e) {
            LOG.trace("{} exists", path);
        } catch (Exception e) {
            throw new SpoolException("node " + nodeId + " could not create " + path + ": " + e, e);
        }
        marked = true;
    }

    /** @throws SpoolException naming the znode, if ZooKeeper refuses. */
    void clear() {
        marked = false;
        try {
            client.delete().forPath(path);
        } catch (KeeperException.NoNodeException e) {
            LOG.trace("{} is gone already", path);
        } catch (Exception e) {
            throw new SpoolException("node " + nodeId + " could not remove " + path + ": " + e, e);
        }
    }
}
