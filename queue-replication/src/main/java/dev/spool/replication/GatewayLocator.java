package dev.spool.replication;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * Where a {@link PublishClient} finds the publish gateway of the current primary: asked at every connection and
 * every reconnection, so that a client follows the primary after a failover. {@link PublishClient#builder} takes a
 * fixed address instead, for a gateway that does not move; the {@code queue-failover} module provides one that
 * reads the primary from ZooKeeper. Called on the client's thread, between publishes, never on its hot path.
 * <p>
 * A locator that learns when the primary changes says so through {@link #generation()}, which the client polls on
 * every pass of its calls: it then leaves a primary that lost its place at once, rather than when its connection
 * closes or falls silent past the client's liveness timeout.
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

    /**
     * A count of the changes of the gateway this locator would name, read on the client's thread on every pass of
     * its calls (while it publishes, waits for room or for a commit): it must cost no more than a volatile read and
     * allocate nothing. The client reads it before each {@link #gateway()} call; when it reads another value later,
     * it calls {@link #gateway()} again, and leaves its gateway at once if the answer is another gateway or none
     * (an {@link IOException}): it reconnects to the gateway named and sends again, under its id, what was not
     * committed. A change that leaves the same gateway named costs one call to {@link #gateway()}.
     *
     * @return a number that changes whenever the answer of {@link #gateway()} may have changed. Default: always 0,
     * for a locator that cannot tell; its client leaves a gateway only when the connection closes or the gateway is
     * silent past the client's liveness timeout.
     */
    default long generation() {
        return 0;
    }
}
