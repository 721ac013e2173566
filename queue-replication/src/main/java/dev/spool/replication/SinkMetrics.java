package dev.spool.replication;

/** The {@link ReplicationSinkMXBean} of a sink: reads its state. */
final class SinkMetrics implements ReplicationSinkMXBean {
    private final ReplicationSink sink;
    private final String directory;

    SinkMetrics(final ReplicationSink sink, final String directory) {
        this.sink = sink;
        this.directory = directory;
    }

    @Override
    public String getDirectory() {
        return directory;
    }

    @Override
    public String getAddress() {
        return sink.address().toString();
    }

    @Override
    public boolean isConnected() {
        return sink.isConnected();
    }

    @Override
    public long getLastIndex() {
        return sink.lastIndex();
    }

    @Override
    public String getFailure() {
        final Throwable failure = sink.failure();
        return failure == null ? "" : failure.toString();
    }

    @Override
    public String getDivergence() {
        final ReplicaDivergedException divergence = sink.divergence();
        return divergence == null ? "" : divergence.getMessage();
    }

    @Override
    public int getRebuilt() {
        return sink.rebuilt();
    }
}
