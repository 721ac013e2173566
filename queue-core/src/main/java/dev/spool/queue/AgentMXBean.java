package dev.spool.queue;

/**
 * The errors of one background duty (an agent: a group commit, a pretoucher, a ring's drainer, a replication
 * service), as a JMX MXBean registered under {@code dev.spool:type=Agent,name="<owner>",role=<role>} beside its
 * owner's MBean (the queue's, the ring's, the service's) when the owner registers one. Any thread may read it at any
 * time; once the duty is closed it keeps its last values until it is unregistered with its owner's.
 */
public interface AgentMXBean {
    /** @return the duty's role, the name of its thread when it has one, e.g. {@code spool-group-commit}. */
    String getRole();

    /** @return what the duty serves, as its log lines name it, e.g. {@code group commit of /data/orders}. */
    String getOwner();

    /** @return the errors that escaped the duty's work since it started, each repeat counted. */
    long getErrorCount();

    /**
     * @return the last of those errors in one line: its class, message and the frame that threw it; empty if none.
     */
    String getLastError();

    /** @return true until the duty stops, on its own rule (see the architecture's agents) or when closed. */
    boolean isRunning();
}
