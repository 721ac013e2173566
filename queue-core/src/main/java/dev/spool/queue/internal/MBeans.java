package dev.spool.queue.internal;

import dev.spool.queue.AgentMXBean;
import dev.spool.queue.SpoolException;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.StandardMBean;
import java.lang.management.ManagementFactory;

/** Registers Spool's MXBeans with the platform MBean server under {@code dev.spool:type=<type>,name="<name>"}. */
public final class MBeans {
    /** The JMX domain of every Spool MBean. */
    public static final String DOMAIN = "dev.spool";

    private MBeans() {
    }

    /**
     * @param type          the MBean's type key, e.g. {@code Queue} or {@code Ring}.
     * @param name          the name key, quoted: the queue's directory or the ring's path.
     * @param mbean         the MXBean.
     * @param mbeanInterface its MXBean interface.
     * @param <T>           that interface.
     * @return the name it is registered under.
     * @throws SpoolException if one of that name is registered already, or registration fails.
     */
    public static <T> ObjectName register(final String type, final String name, final T mbean,
                                          final Class<T> mbeanInterface) {
        return registerAs(DOMAIN + ":type=" + type + ",name=" + ObjectName.quote(name), type, mbean, mbeanInterface);
    }

    /**
     * Registers the MXBean of a service that a cluster node runs, under {@code dev.spool:type=<type>,name="<name>",
     * node="<node id>"}: the name of the same service run alone, and the node it belongs to, so that the nodes of a
     * cluster in one JVM never collide and a query on {@code node} finds one node's services.
     *
     * @param type           the MBean's type key, e.g. {@code ReplicationSink}.
     * @param name           the name key, unquoted: the service's queue directory.
     * @param node           the node's id, unquoted.
     * @param mbean          the MXBean.
     * @param mbeanInterface its MXBean interface.
     * @param <T>            that interface.
     * @return the name it is registered under.
     * @throws SpoolException if one of that name is registered already, or registration fails.
     */
    public static <T> ObjectName registerOfNode(final String type, final String name, final String node, final T mbean,
                                                final Class<T> mbeanInterface) {
        return registerAs(DOMAIN + ":type=" + type + ",name=" + ObjectName.quote(name) + ",node="
                + ObjectName.quote(node), type, mbean, mbeanInterface);
    }

    /**
     * Registers the MXBean of one of an owner's agents, under {@code dev.spool:type=Agent,name="<owner name>",
     * role="<role>"}: beside the owner's own, whose name key it shares.
     *
     * @param name  the owner's name key, unquoted: the queue's directory, the ring's path.
     * @param role  the agent's role.
     * @param mbean the agent's MXBean.
     * @return the name it is registered under.
     * @throws SpoolException if one of that name is registered already, or registration fails.
     */
    public static ObjectName registerAgent(final String name, final String role, final AgentMXBean mbean) {
        return registerAs(DOMAIN + ":type=Agent,name=" + ObjectName.quote(name) + ",role=" + ObjectName.quote(role),
                "Agent", mbean, AgentMXBean.class);
    }

    private static <T> ObjectName registerAs(final String text, final String type, final T mbean,
                                             final Class<T> mbeanInterface) {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        try {
            final ObjectName objectName = new ObjectName(text);
            server.registerMBean(new StandardMBean(mbean, mbeanInterface, true), objectName);
            return objectName;
        } catch (javax.management.InstanceAlreadyExistsException e) {
            throw new SpoolException("cannot register MBean " + text + ": one of that name is registered already,"
                    + " by another instance of the same " + type.toLowerCase(java.util.Locale.ROOT) + " in this JVM", e);
        } catch (JMException e) {
            throw new SpoolException("cannot register MBean " + text + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param objectName a name {@link #register} returned.
     * @throws SpoolException if it cannot be unregistered.
     */
    public static void unregister(final ObjectName objectName) {
        try {
            ManagementFactory.getPlatformMBeanServer().unregisterMBean(objectName);
        } catch (javax.management.InstanceNotFoundException e) {
            // unregistered already: nothing to do
        } catch (JMException e) {
            throw new SpoolException("cannot unregister MBean " + objectName + ": " + e.getMessage(), e);
        }
    }
}
