package dev.spool.replication;

/** The {@link ReplicationSourceMXBean} of a source: reads its state when JMX asks, nothing on the hot path. */
final class SourceMetrics implements ReplicationSourceMXBean {
    private final ReplicationSource source;
    private final String directory;

    SourceMetrics(final ReplicationSource source, final String directory) {
        this.source = source;
        this.directory = directory;
    }

    @Override
    public String getDirectory() {
        return directory;
    }

    @Override
    public int getReplicas() {
        return source.replicas();
    }

    @Override
    public int getAckQuorum() {
        return source.ackQuorum();
    }

    @Override
    public int getConnectedReplicas() {
        return source.connectedReplicas();
    }

    @Override
    public long getLastAckedIndex() {
        return Failover.lastAckedIndex(source.queue());
    }

    @Override
    public long getQuorumAckedIndex() {
        return Failover.quorumAckedIndex(source.queue());
    }

    @Override
    public String[] getReplicaAddresses() {
        final String[] addresses = new String[source.replicas()];
        for (int i = 0; i < addresses.length; i++) {
            addresses[i] = String.valueOf(source.replica(i));
        }
        return addresses;
    }

    @Override
    public boolean[] getRetainedFor() {
        final boolean[] retained = new boolean[source.replicas()];
        for (int i = 0; i < retained.length; i++) {
            retained[i] = source.isRetainedFor(i);
        }
        return retained;
    }

    @Override
    public long[] getAckedIndices() {
        final long[] indices = new long[source.replicas()];
        for (int i = 0; i < indices.length; i++) {
            indices[i] = source.ackedIndex(i);
        }
        return indices;
    }

    @Override
    public long[] getSentIndices() {
        final long[] indices = new long[source.replicas()];
        for (int i = 0; i < indices.length; i++) {
            indices[i] = source.sentIndex(i);
        }
        return indices;
    }

    @Override
    public long[] getUnackedBytes() {
        final long[] bytes = new long[source.replicas()];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = source.unackedBytes(i);
        }
        return bytes;
    }

    @Override
    public String[] getFailures() {
        final String[] failures = new String[source.replicas()];
        for (int i = 0; i < failures.length; i++) {
            final Throwable failure = source.failure(i);
            failures[i] = failure == null ? "" : failure.toString();
        }
        return failures;
    }

    @Override
    public boolean isAcknowledgementsHeld() {
        return source.acknowledgementsHeld();
    }
}
