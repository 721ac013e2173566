package dev.spool.replication;

import dev.spool.queue.SpoolQueue;

import java.nio.file.Path;

/**
 * The MXBeans of a sink, a source and a gateway, for a process that registers them itself under names of its own, as
 * a cluster node does (its node id in each name). A service built with {@code registerMBean()} registers its own
 * instead. Each reads the service's state when JMX asks; nothing is counted on the hot path for it.
 */
public final class ServiceMetrics {
    private ServiceMetrics() {
    }

    /**
     * @param sink a running sink.
     * @param directory its replica's directory, as the MXBean shows it.
     * @return its MXBean.
     */
    public static ReplicationSinkMXBean of(final ReplicationSink sink, final Path directory) {
        return new SinkMetrics(sink, name(directory));
    }

    /**
     * @param source a running source.
     * @return its MXBean.
     */
    public static ReplicationSourceMXBean of(final ReplicationSource source) {
        return new SourceMetrics(source, name(source.queue()));
    }

    /**
     * @param gateway a running gateway.
     * @param queue   the queue it publishes into.
     * @return its MXBean.
     */
    public static PublishGatewayMXBean of(final PublishGateway gateway, final SpoolQueue queue) {
        return new GatewayMetrics(gateway, name(queue));
    }

    private static String name(final SpoolQueue queue) {
        return name(queue.directory());
    }

    private static String name(final Path directory) {
        return directory.toAbsolutePath().normalize().toString();
    }
}
