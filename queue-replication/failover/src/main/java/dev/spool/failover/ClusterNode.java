package dev.spool.failover;

import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.internal.AgentHost;
import dev.spool.queue.internal.MBeans;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.agrona.concurrent.SystemNanoClock;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.SessionConnectionStateErrorPolicy;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * One process's membership of a replicated queue whose failover ZooKeeper coordinates: the node owns the queue's
 * directory and runs, as its role requires, a {@link dev.spool.replication.ReplicationSink} (a follower) or a
 * {@link dev.spool.replication.ReplicationSource} to every other member and a
 * {@link dev.spool.replication.PublishGateway} (the primary). When the primary's ZooKeeper session ends the
 * followers elect a new one on their own; the old one fences itself before that can happen; a node that comes back
 * follows whoever is primary then. ZooKeeper is never on the path of a publish: it is used at start, at a failover
 * and when a node joins.
 * <p>
 * The rule that loses nothing: of n members, an index committed at ACKED_BY_QUORUM is held by the primary and k
 * followers, so any {@code n - k} members include one that holds it. A follower does not promote until
 * {@code n - k} candidates (itself among them) have told how far their replicas go; the most advanced of them, by
 * the term of its last excerpt and then its last index, joins Curator's {@code LeaderLatch}, takes the next term
 * from ZooKeeper by compare-and-set, and becomes the primary. Too few candidates: nobody promotes, and
 * {@link #waitingFor()} and the log say why.
 * <p>
 * A primary whose ZooKeeper connection is suspended holds every acknowledged commit stage (its clients wait);
 * when its session is lost it fences its queue, before the session's timeout can let another node win. A node that
 * comes back with excerpts the new primary lacks has its directory set aside (kept, named in an ERROR) and its
 * queue rebuilt from the primary.
 */
public final class ClusterNode implements AutoCloseable {
    /** The session timeout unless the builder sets another: the failover time is about this long. */
    public static final Duration DEFAULT_SESSION_TIMEOUT = Duration.ofSeconds(4);
    /** How long {@link Builder#start()} waits for ZooKeeper unless the builder sets another. */
    public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(10);
    /** The root of Spool's znodes unless the builder sets another. */
    public static final String DEFAULT_ROOT = "/spool";
    private static final Logger LOG = LoggerFactory.getLogger(ClusterNode.class);

    private final NodeConfig config;
    private final Znodes znodes;
    private final CuratorFramework client;
    private final CuratorCache cache;
    private final PersistentNode registration;
    private final NodeAgent agent;
    private final AgentHost host;
    private final ObjectName mbeanName;

    private ClusterNode(final NodeConfig config) {
        ZooKeeperLogging.quiet();
        this.config = config;
        this.znodes = new Znodes(config.root(), config.queueId());
        this.client = CuratorFrameworkFactory.builder()
                .connectString(config.zookeeper())
                .sessionTimeoutMs((int) config.sessionTimeout().toMillis())
                .connectionTimeoutMs((int) config.operationTimeout().toMillis())
                .retryPolicy(new ExponentialBackoffRetry(50, 5, 1000))
                // leadership ends with the session, not with a suspended connection: a suspended primary holds
                // its acknowledgements instead, and keeps its term if the session survives
                .connectionStateErrorPolicy(new SessionConnectionStateErrorPolicy())
                // the node keeps to the connect string it was given: Curator's ensemble tracker would replace it by
                // the servers' own addresses, which a node behind a proxy or NAT cannot reach or must not bypass
                .ensembleTracker(false)
                .build();
        client.start();
        PersistentNode registered = null;
        CuratorCache started = null;
        try {
            if (!client.blockUntilConnected((int) config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new SpoolException("node " + config.nodeId() + " cannot reach ZooKeeper at "
                        + config.zookeeper() + " within " + config.connectTimeout() + ": nothing was created");
            }
            checkClusterConfig();
            ensureTerm();
            final RebuildingMark rebuilding = new RebuildingMark(client, znodes, config.nodeId());
            if (!LocalQueue.exists(config) && currentTerm() > 0) {
                // a member that joins with an empty directory holds none of what the cluster acknowledged
                rebuilding.mark("it joins with an empty directory " + config.directory());
            }
            final RollCycle rollCycle = LocalQueue.prepare(config);
            awaitIdFree();
            this.agent = new NodeAgent(config, znodes, client, rebuilding);
            agent.status().rollCycle(rollCycle);
            agent.status().sessionGranted(client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
            registered = new PersistentNode(client, CreateMode.EPHEMERAL, false, znodes.node(config.nodeId()),
                    agent.stateData());
            registered.start();
            if (!registered.waitForInitialCreate(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new SpoolException("node " + config.nodeId() + " could not register at "
                        + znodes.node(config.nodeId()) + " within " + config.connectTimeout());
            }
            agent.registration(registered);
            started = CuratorCache.build(client, znodes.base());
            final CountDownLatch loaded = new CountDownLatch(1);
            started.listenable().addListener(CuratorCacheListener.builder().forInitialized(loaded::countDown).build());
            started.start();
            if (!loaded.await(config.connectTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                throw new SpoolException("node " + config.nodeId() + " could not read " + znodes.base() + " from"
                        + " ZooKeeper at " + config.zookeeper() + " within " + config.connectTimeout());
            }
            agent.cache(started);
            client.getConnectionStateListenable().addListener((c, state) -> {
                agent.onConnectionState(state);
                // a new session may be granted another timeout, by servers of another tickTime
                agent.status().sessionGranted(c.getZookeeperClient().getLastNegotiatedSessionTimeoutMs());
            });
            this.registration = registered;
            this.cache = started;
            this.host = AgentHost.builder("the cluster node " + config.nodeId() + " of " + config.directory(), agent)
                    .role("spool-cluster-node")
                    .threadFactory(config.threadFactory())
                    .start(new SleepingMillisIdleStrategy(2));
            this.mbeanName = config.registerMBean() ? MBeans.register("ClusterNode", config.nodeId(), agent.status(),
                    ClusterNodeMXBean.class) : null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            closeQuietly(started, registered);
            throw new SpoolException("interrupted while node " + config.nodeId() + " connected to ZooKeeper at "
                    + config.zookeeper());
        } catch (RuntimeException | Error e) {
            closeQuietly(started, registered);
            throw e;
        }
    }

    private void closeQuietly(final CuratorCache started, final PersistentNode registered) {
        if (started != null) {
            started.close();
        }
        if (registered != null) {
            try {
                registered.close();
            } catch (java.io.IOException | RuntimeException e) {
                // the session's end below removes the ephemeral znode anyway
                LOG.debug("node {} left {} to its session's end: {}", config.nodeId(), znodes.node(config.nodeId()),
                        e.toString());
            }
        }
        client.close();
    }

    /**
     * The first node writes the members and the ack quorum; every later node must have been given the same, or it
     * is refused, naming the znode and both values.
     */
    private void checkClusterConfig() {
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

    private void ensureTerm() {
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

    private long currentTerm() {
        final Map<String, String> term = Znodes.decode(znodes.term(), read(znodes.term(), null), Znodes.TERM_FORMAT,
                "term");
        return Znodes.number(znodes.term(), "term", term.get("term"));
    }

    /**
     * A node id is one process's: a znode of this id left by a process that died goes when its session expires, so
     * it is awaited for a session timeout and a half; one still there belongs to a live node, and this one is
     * refused.
     */
    private void awaitIdFree() {
        final String path = znodes.node(config.nodeId());
        final long deadline = SystemNanoClock.INSTANCE.nanoTime() + config.sessionTimeout().toNanos() * 3 / 2;
        try {
            Stat stat = client.checkExists().forPath(path);
            while (stat != null && SystemNanoClock.INSTANCE.nanoTime() - deadline < 0) {
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

    /**
     * @param zookeeper the ZooKeeper connect string, such as {@code zk1:2181,zk2:2181,zk3:2181}: the node connects
     *                  to these addresses only, never to those the ensemble publishes of its servers, so that it can
     *                  reach ZooKeeper through a proxy or a port mapping.
     * @param queueId   the replicated queue's id: every node of the cluster is given the same; a node's directory
     *                  that holds a queue of another id is refused.
     * @param nodeId    this node's id, one of the members'.
     * @param directory this node's queue directory; created as a replica of {@code queueId} if absent.
     * @return a builder of a node.
     */
    public static Builder builder(final String zookeeper, final UUID queueId, final String nodeId,
            final Path directory) {
        return new Builder(zookeeper, queueId, nodeId, directory);
    }

    /** @return what the node is doing now; {@link NodeState#CLOSED} once {@link #close()} was called. */
    public NodeState state() {
        return agent.state();
    }

    /** @return true while this node is the primary. */
    public boolean isPrimary() {
        return agent.state() == NodeState.PRIMARY;
    }

    /** @return the term of the node's queue, as it last knew it: of its primary, or its own as primary. */
    public long term() {
        return agent.term();
    }

    /** @return this node's id. */
    public String nodeId() {
        return config.nodeId();
    }

    /** @return the member this node is. */
    public Member member() {
        return config.self();
    }

    /**
     * @return while this node is a candidate that may not promote, why: how many candidates answered of how many
     * the rule needs, or that the chosen candidate is another; null otherwise.
     */
    public String waitingFor() {
        return agent.waitingFor();
    }

    /** @return how many times this node became the primary. */
    public long promotions() {
        return agent.promotions();
    }

    /** @return how many times this node's directory was set aside because it held excerpts the primary lacked. */
    public long directoriesSetAside() {
        return agent.directoriesSetAside();
    }

    /**
     * @return how many times this primary held its acknowledgements because its ZooKeeper connection was
     * suspended.
     */
    public long holds() {
        return agent.holds();
    }

    /** @return the node's figures as its {@link ClusterNodeMXBean} shows them, registered or not; kept after close. */
    public ClusterNodeMXBean metrics() {
        return agent.status();
    }

    /**
     * Leaves the cluster: stops the sink, or the gateway and the source, closes the queue, unregisters the node's
     * MBeans and ends the ZooKeeper session, so that a primary's followers elect another at once rather than after
     * the session timeout. The node's state is then {@link NodeState#CLOSED}; its getters keep their last values.
     * Closing again does nothing.
     */
    @Override
    public synchronized void close() {
        if (agent.state() == NodeState.CLOSED) {
            return;
        }
        if (mbeanName != null) {
            MBeans.unregister(mbeanName);
        }
        host.close();
        agent.stopServices();
        agent.closed();
        cache.close();
        try {
            registration.close();
        } catch (java.io.IOException e) {
            throw new SpoolException("node " + config.nodeId() + " could not remove " + znodes.node(config.nodeId())
                    + ": " + e, e);
        } finally {
            client.close();
        }
    }

    /** Settings of a {@link ClusterNode}. */
    public static final class Builder {
        private final String zookeeper;
        private final UUID queueId;
        private final String nodeId;
        private final Path directory;
        private final List<Member> members = new ArrayList<>();
        private int ackQuorum;
        private Duration sessionTimeout = DEFAULT_SESSION_TIMEOUT;
        private Duration connectTimeout = DEFAULT_CONNECT_TIMEOUT;
        private String root = DEFAULT_ROOT;
        private byte[] replicationSecret;
        private byte[] clientSecret;
        private boolean insecure;
        private Consumer<SpoolQueueBuilder> queueSettings = settings -> { };
        private InetSocketAddress replicationListen;
        private boolean registerMBean;

        private Builder(final String zookeeper, final UUID queueId, final String nodeId, final Path directory) {
            this.zookeeper = Objects.requireNonNull(zookeeper, "zookeeper");
            this.queueId = Objects.requireNonNull(queueId, "queueId");
            this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
            this.directory = Objects.requireNonNull(directory, "directory");
        }

        /**
         * @param member one member of the cluster; give every member, this node among them, to every node.
         * @return this builder.
         */
        public Builder member(final Member member) {
            members.add(Objects.requireNonNull(member, "member"));
            return this;
        }

        /**
         * @param k how many followers must acknowledge a commit at ACKED_BY_QUORUM; default a majority of the
         *          followers. A larger k makes a failover possible with fewer followers alive (n - k candidates
         *          must answer), a smaller one keeps commits going with fewer followers alive (k must ack).
         * @return this builder.
         */
        public Builder ackQuorum(final int k) {
            this.ackQuorum = k;
            return this;
        }

        /**
         * @param timeout the ZooKeeper session timeout: a primary that dies is replaced about this long after;
         *                default {@link #DEFAULT_SESSION_TIMEOUT}. ZooKeeper keeps it between 2 and 20 of its
         *                servers' tickTime.
         * @return this builder.
         */
        public Builder sessionTimeout(final Duration timeout) {
            this.sessionTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * @param timeout how long {@link #start()} waits for ZooKeeper; default {@link #DEFAULT_CONNECT_TIMEOUT}. A
         *                ZooKeeper operation of the running node waits for a connection this long, but never longer
         *                than the session timeout: a short session timeout needs no shorter connect timeout.
         * @return this builder.
         */
        public Builder connectTimeout(final Duration timeout) {
            this.connectTimeout = Objects.requireNonNull(timeout, "timeout");
            return this;
        }

        /**
         * @param root the root of Spool's znodes; default {@link #DEFAULT_ROOT}.
         * @return this builder.
         */
        public Builder root(final String root) {
            this.root = Objects.requireNonNull(root, "root");
            return this;
        }

        /**
         * @param secret the secret of the nodes' replication, at least 16 bytes (32 random bytes are best): each
         *               node's source and sink prove it to each other. Give every node the same, and no client.
         * @return this builder.
         */
        public Builder replicationSecret(final byte[] secret) {
            this.replicationSecret = Objects.requireNonNull(secret, "secret").clone();
            return this;
        }

        /**
         * @param secret the secret the primary's publish gateway and its clients share, at least 16 bytes: give every
         *               node the same, and the clients this one. A holder of the replication secret could act as a
         *               source or a sink; a holder of this one can only publish.
         * @return this builder.
         */
        public Builder clientSecret(final byte[] secret) {
            this.clientSecret = Objects.requireNonNull(secret, "secret").clone();
            return this;
        }

        /**
         * Sets both {@link #replicationSecret} and {@link #clientSecret} to one secret: every client then holds the
         * replication secret too and could act as a source or a sink. For tests and a trusted network; give two
         * secrets otherwise.
         *
         * @param secret the one secret, at least 16 bytes.
         * @return this builder.
         */
        public Builder sharedSecret(final byte[] secret) {
            return replicationSecret(secret).clientSecret(secret);
        }

        /**
         * Runs the node's replication and gateway without secrets: only for a trusted network.
         *
         * @return this builder.
         */
        public Builder insecure() {
            this.insecure = true;
            return this;
        }

        /**
         * @param queueSettings the queue's settings (roll cycle, epoch, checksums, sync policy...): give every node
         *                      the same, since any of them may create the queue or become its primary.
         * @return this builder.
         */
        public Builder queueSettings(final Consumer<SpoolQueueBuilder> queueSettings) {
            this.queueSettings = Objects.requireNonNull(queueSettings, "queueSettings");
            return this;
        }

        /**
         * Registers the node's {@link ClusterNodeMXBean} as {@code dev.spool:type=ClusterNode,name="<node id>"}, and
         * its role's MBeans as {@code dev.spool:type=<type>,name="<directory>",node="<node id>"} (ReplicationSink on a
         * follower, ReplicationSource and PublishGateway on the primary) until the role ends or the node closes.
         *
         * @return this builder.
         */
        public Builder registerMBean() {
            this.registerMBean = true;
            return this;
        }

        /**
         * @param listen where this node's sink listens while it follows, when the other nodes reach it at another
         *               address (its member's replication address) through a NAT, a port mapping or a proxy;
         *               default the member's replication address.
         * @return this builder.
         */
        public Builder replicationListen(final InetSocketAddress listen) {
            this.replicationListen = Objects.requireNonNull(listen, "listen");
            return this;
        }

        /**
         * Checks the settings, connects to ZooKeeper, records or checks the cluster's configuration, creates the
         * queue as a replica if its directory has none, registers the node and starts it: it follows the primary,
         * or takes part in an election if there is none.
         *
         * @return the running node.
         * @throws SpoolException if a setting is wrong, ZooKeeper cannot be reached within the connect timeout
         *                        (naming the connect string; nothing is created), the cluster was configured
         *                        otherwise, a znode was written by something else, another live node has this id, or
         *                        the directory holds a queue of another id.
         */
        public ClusterNode start() {
            return new ClusterNode(conclude());
        }

        private NodeConfig conclude() {
            NodeSecrets.check(nodeId, replicationSecret, clientSecret, insecure);
            if (members.size() < 2) {
                throw new SpoolException("node " + nodeId + " has " + members.size() + " members: a cluster needs a"
                        + " primary and at least one follower");
            }
            Member self = null;
            final List<String> ids = new ArrayList<>();
            for (final Member member : members) {
                if (ids.contains(member.nodeId())) {
                    throw new SpoolException("node id " + member.nodeId() + " is given twice among the members");
                }
                ids.add(member.nodeId());
                if (member.nodeId().equals(nodeId)) {
                    self = member;
                }
            }
            if (self == null) {
                throw new SpoolException("node " + nodeId + " is not among the members " + ids);
            }
            final int followers = members.size() - 1;
            final int k = ackQuorum == 0 ? followers / 2 + 1 : ackQuorum;
            if (k < 1 || k > followers) {
                throw new SpoolException("ackQuorum=" + ackQuorum + " with " + followers + " followers: from 1 to "
                        + followers);
            }
            if (sessionTimeout.toMillis() < 100 || connectTimeout.toMillis() < 1) {
                throw new SpoolException("sessionTimeout=" + sessionTimeout + " and connectTimeout=" + connectTimeout
                        + " must be at least 100 ms and positive");
            }
            if (!root.startsWith("/") || root.length() < 2) {
                throw new SpoolException("root '" + root + "' must be an absolute znode path such as /spool");
            }
            return new NodeConfig(zookeeper, queueId, self, List.copyOf(members), k, sessionTimeout, connectTimeout,
                    root, directory, replicationSecret, clientSecret, insecure, queueSettings,
                    AgentHost.daemonThreads(), replicationListen != null ? replicationListen : self.replication(),
                    registerMBean);
        }
    }
}
