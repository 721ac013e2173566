package dev.spool.replication;

/**
 * The state of a {@link ReplicationSource} and of each of its replicas, as a JMX MXBean registered under
 * {@code dev.spool:type=ReplicationSource,name="<primary directory>"} when the builder asks
 * ({@link ReplicationSource.Builder#registerMBean()}). Per-replica attributes are arrays indexed like the sinks given
 * to the builder (replica 0 first). The primary queue's own counters are its queue MBean's.
 */
public interface ReplicationSourceMXBean {
    /** @return the primary queue's directory. */
    String getDirectory();

    /** @return the number of replicas (sinks) the source streams to. */
    int getReplicas();

    /** @return k of the ack quorum, k of N. */
    int getAckQuorum();

    /** @return the replicas connected and past the handshake now. */
    int getConnectedReplicas();

    /** @return the highest index any replica acknowledged, -1 if none. */
    long getLastAckedIndex();

    /** @return the highest index the ack quorum acknowledged, -1 if none. */
    long getQuorumAckedIndex();

    /** @return each replica's address. */
    String[] getReplicaAddresses();

    /** @return each replica's last acknowledged index, -1 if none. */
    long[] getAckedIndices();

    /** @return each replica's last index sent. */
    long[] getSentIndices();

    /** @return each replica's lag in bytes: payload bytes sent and not yet acknowledged. */
    long[] getUnackedBytes();

    /**
     * @return for each replica, false once the primary's retention found it past the queue's replica lag limit, so
     * that the cycles it still needs are no longer kept ({@link ReplicationSource#isRetainedFor(int)}); else true.
     */
    boolean[] getRetainedFor();

    /**
     * @return each replica's error that stopped replication to it for good, or, while its sink keeps refusing this
     * source's proof of the shared secret (3 times in a row or more), that refusal; else an empty string.
     */
    String[] getFailures();

    /**
     * @return true while the source's acknowledgements are held ({@link ReplicationSource#holdAcknowledgements()}):
     * no write reaches an acknowledged commit stage.
     */
    boolean isAcknowledgementsHeld();
}
