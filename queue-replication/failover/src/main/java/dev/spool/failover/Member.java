package dev.spool.failover;

import dev.spool.queue.SpoolException;

import java.net.InetSocketAddress;
import java.util.Objects;

/**
 * One member of a replicated queue's cluster, as every node is configured with it: its node id, the address its
 * replication sink listens on while it follows, and the address its publish gateway listens on while it is the
 * primary. Every node of a cluster is given the same members, itself among them.
 */
public final class Member {
    private final String nodeId;
    private final InetSocketAddress replication;
    private final InetSocketAddress gateway;

    private Member(final String nodeId, final InetSocketAddress replication, final InetSocketAddress gateway) {
        this.nodeId = nodeId;
        this.replication = replication;
        this.gateway = gateway;
    }

    /**
     * @param nodeId      1 to 64 letters, digits, '-', '_' or '.': it names the node's znode.
     * @param replication where its sink listens while it follows; the primary's source connects there.
     * @param gateway     where its publish gateway listens while it is the primary.
     * @return the member.
     * @throws SpoolException if the id has other characters or the two addresses are one.
     */
    public static Member of(final String nodeId, final InetSocketAddress replication, final InetSocketAddress gateway) {
        Objects.requireNonNull(nodeId, "nodeId");
        Objects.requireNonNull(replication, "replication");
        Objects.requireNonNull(gateway, "gateway");
        if (!nodeId.matches("[A-Za-z0-9._-]{1,64}") || ".".equals(nodeId) || "..".equals(nodeId)) {
            throw new SpoolException("node id '" + nodeId + "' must be 1 to 64 letters, digits, '-', '_' or '.'");
        }
        if (replication.equals(gateway)) {
            throw new SpoolException("member " + nodeId + " has one address " + replication + " for its replication"
                    + " and its gateway: give each its own port");
        }
        return new Member(nodeId, replication, gateway);
    }

    /** @return the node id. */
    public String nodeId() {
        return nodeId;
    }

    /** @return where its replication sink listens while it follows. */
    public InetSocketAddress replication() {
        return replication;
    }

    /** @return where its publish gateway listens while it is the primary. */
    public InetSocketAddress gateway() {
        return gateway;
    }

    /** @return the member as the cluster's config znode records it: {@code id@host:port/host:port}. */
    @Override
    public String toString() {
        return nodeId + "@" + text(replication) + "/" + text(gateway);
    }

    private static String text(final InetSocketAddress address) {
        return address.getHostString() + ":" + address.getPort();
    }
}
