package dev.spool.replication;

import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The settings of a {@link PublishClient}, validated and with every default resolved by
 * {@link PublishClient.Builder#connect()}: the only thing the client reads. Immutable.
 *
 * @param gateway          the gateway's address.
 * @param maxMessageLength the longest message the client publishes.
 * @param secret           the shared secret, or null for an insecure gateway; not to be changed.
 * @param timeout          how long the connection, the handshake and a publish waiting for room wait.
 * @param epochClock       the wall clock, in milliseconds since the epoch.
 * @param nanoClock        the clock of every deadline of the client.
 */
record ClientConfig(InetSocketAddress gateway, int maxMessageLength, byte[] secret, Duration timeout,
                    EpochClock epochClock, NanoClock nanoClock) {
    /** Copies what could change under it. */
    ClientConfig {
        secret = secret == null ? null : secret.clone();
    }
}
