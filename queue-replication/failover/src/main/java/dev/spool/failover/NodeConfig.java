package dev.spool.failover;

import dev.spool.queue.SpoolQueueBuilder;

import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;

/**
 * A node's settings, checked and complete: what {@link ClusterNode.Builder} concludes to.
 *
 * @param zookeeper         the connect string.
 * @param queueId           the replicated queue's id.
 * @param self              this node's member.
 * @param members           every member, this one among them.
 * @param ackQuorum         k of the followers for ACKED_BY_QUORUM.
 * @param sessionTimeout    the ZooKeeper session timeout asked for.
 * @param connectTimeout    how long the start waits for ZooKeeper.
 * @param root              the root of Spool's znodes.
 * @param directory         the node's queue directory.
 * @param replicationSecret the secret of the nodes' replication, or null if insecure.
 * @param clientSecret      the secret of the gateway's clients, or null if insecure.
 * @param insecure          true to run without secrets.
 * @param queueSettings     the queue's settings.
 * @param threadFactory     makes the node's threads.
 * @param replicationListen where the node's sink listens.
 * @param registerMBean     true to register the node's MXBeans.
 */
record NodeConfig(String zookeeper, UUID queueId, Member self, List<Member> members, int ackQuorum,
        Duration sessionTimeout, Duration connectTimeout, String root, Path directory, byte[] replicationSecret,
        byte[] clientSecret, boolean insecure, Consumer<SpoolQueueBuilder> queueSettings, ThreadFactory threadFactory,
        InetSocketAddress replicationListen, boolean registerMBean) {

    String nodeId() {
        return self.nodeId();
    }

    /**
     * @return how long one ZooKeeper operation waits for a connection (Curator's connection timeout): the connect
     * timeout, but never more than the session timeout, past which waiting makes no sense and which Curator warns of.
     */
    Duration operationTimeout() {
        return connectTimeout.compareTo(sessionTimeout) < 0 ? connectTimeout : sessionTimeout;
    }
}
