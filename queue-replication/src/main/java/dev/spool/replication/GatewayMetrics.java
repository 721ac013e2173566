package dev.spool.replication;

/** The {@link PublishGatewayMXBean} of a gateway: reads its state when JMX asks, nothing on the hot path. */
final class GatewayMetrics implements PublishGatewayMXBean {
    private final PublishGateway gateway;
    private final String directory;

    GatewayMetrics(final PublishGateway gateway, final String directory) {
        this.gateway = gateway;
        this.directory = directory;
    }

    @Override
    public String getDirectory() {
        return directory;
    }

    @Override
    public String getAddress() {
        return gateway.address().toString();
    }

    @Override
    public long getResentPublishes() {
        return gateway.resentPublishes();
    }

    @Override
    public String getFailure() {
        final Throwable failure = gateway.failure();
        return failure == null ? "" : failure.toString();
    }
}
