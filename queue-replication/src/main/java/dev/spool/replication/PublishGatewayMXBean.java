package dev.spool.replication;

/**
 * The state of a {@link PublishGateway}, as a JMX MXBean: a cluster node registers it while it is the primary
 * ({@code dev.spool:type=PublishGateway,name="<queue directory>",node="<node id>"});
 * {@link ServiceMetrics#of(PublishGateway, dev.spool.queue.SpoolQueue)} gives it to an application that registers it
 * itself.
 */
public interface PublishGatewayMXBean {
    /** @return the queue's directory. */
    String getDirectory();

    /** @return the address the gateway listens on. */
    String getAddress();

    /** @return {@link PublishGateway#resentPublishes()}. */
    long getResentPublishes();

    /** @return the error that stopped the gateway, or an empty string while it runs. */
    String getFailure();
}
