package dev.spool.failover;

import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.MBeans;
import dev.spool.replication.PublishGateway;
import dev.spool.replication.PublishGatewayMXBean;
import dev.spool.replication.ReplicationSink;
import dev.spool.replication.ReplicationSinkMXBean;
import dev.spool.replication.ReplicationSource;
import dev.spool.replication.ReplicationSourceMXBean;
import dev.spool.replication.ServiceMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;
import java.util.ArrayList;
import java.util.List;

/**
 * The MXBeans of the services a node runs in its role, when its builder asked for MBeans: a follower's sink, a
 * primary's source and gateway, each as {@code dev.spool:type=<type>,name="<queue directory>",node="<node id>"},
 * registered when the node takes the role and unregistered when it leaves it or closes. Used on the node's duty and
 * at close, never at once.
 */
final class NodeMBeans {
    private static final Logger LOG = LoggerFactory.getLogger(NodeMBeans.class);
    private final NodeConfig config;
    private final String directory;
    private final List<ObjectName> sink = new ArrayList<>();
    private final List<ObjectName> primary = new ArrayList<>();

    NodeMBeans(final NodeConfig config) {
        this.config = config;
        this.directory = config.directory().toAbsolutePath().normalize().toString();
    }

    /** @param running the follower's sink, just started. */
    void sink(final ReplicationSink running) {
        if (config.registerMBean()) {
            register(sink, "ReplicationSink", ServiceMetrics.of(running, config.directory()),
                    ReplicationSinkMXBean.class);
        }
    }

    /**
     * @param queue   the primary's queue.
     * @param source  its source, just started.
     * @param gateway its gateway, just started.
     */
    void primary(final SpoolQueue queue, final ReplicationSource source, final PublishGateway gateway) {
        if (config.registerMBean()) {
            register(primary, "ReplicationSource", ServiceMetrics.of(source), ReplicationSourceMXBean.class);
            register(primary, "PublishGateway", ServiceMetrics.of(gateway, queue), PublishGatewayMXBean.class);
        }
    }

    /** Before the sink closes. */
    void sinkStops() {
        unregister(sink);
    }

    /** Before the gateway and the source close. */
    void primaryStops() {
        unregister(primary);
    }

    /**
     * A name taken by something else in the JVM costs the node that MBean, not its role: the service runs on, and the
     * node says which name it could not register.
     */
    private <T> void register(final List<ObjectName> names, final String type, final T mbean, final Class<T> of) {
        try {
            names.add(MBeans.registerOfNode(type, directory, config.nodeId(), mbean, of));
        } catch (SpoolException e) {
            LOG.warn("node {} runs its {} without its MBean: {}", config.nodeId(), type, e.getMessage());
        }
    }

    private void unregister(final List<ObjectName> names) {
        for (final ObjectName name : names) {
            try {
                MBeans.unregister(name);
            } catch (SpoolException e) {
                LOG.warn("node {} leaves the MBean {} registered: {}", config.nodeId(), name, e.getMessage());
            }
        }
        names.clear();
    }
}
