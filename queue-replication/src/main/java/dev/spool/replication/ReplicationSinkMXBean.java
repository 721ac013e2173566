package dev.spool.replication;

/**
 * The state of a {@link ReplicationSink}, as a JMX MXBean registered under
 * {@code dev.spool:type=ReplicationSink,name="<replica directory>"} when the builder asks
 * ({@link ReplicationSink.Builder#registerMBean()}). The replica queue's own counters are its queue MBean's.
 */
public interface ReplicationSinkMXBean {
    /** @return the replica's directory. */
    String getDirectory();

    /** @return the address the sink listens on. */
    String getAddress();

    /** @return true while a source is connected and past the handshake. */
    boolean isConnected();

    /** @return the last index written to the replica, -1 if none. */
    long getLastIndex();

    /** @return the error that stopped the sink, or an empty string while it runs. */
    String getFailure();

    /**
     * @return the last refusal of the replica's history as divergent by a source ({@link ReplicationSink#divergence()}),
     * naming both indices, or an empty string if there is none.
     */
    String getDivergence();

    /**
     * @return how many times since the sink started its replica fell behind its source's retention and was set
     * aside, kept, and rebuilt from the source's oldest cycle ({@link ReplicationSink#rebuilt()}).
     */
    int getRebuilt();
}
