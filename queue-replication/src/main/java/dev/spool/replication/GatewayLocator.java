package dev.spool.replication;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Where a {@link PublishClient} finds the publish gateway of the current primary: asked at every connection and
 * every reconnection, so that a client follows the primary after a failover. {@link PublishClient#builder} takes a
 * fixed address instead, for a gateway that does not move; the {@code queue-failover} module provides one that
 * reads the primary from ZooKeeper. Called on the client's thread, between publishes, never on its hot path.
 */
@FunctionalInterface
public interface GatewayLocator {
    /**
     * @return the address of the gateway to connect to now: the current primary's.
     * @throws IOException if no primary is known now (an election in progress, a coordinator unreachable): the
     *                     client asks again after a back-off, until its timeout runs out. It should not block much
     *                     longer than it takes to ask the coordinator.
     */
    InetSocketAddress gateway() throws IOException;
}
