package dev.spool.replication;

import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;

import java.net.InetSocketAddress;
import java.time.Duration;

/**
 * The settings of a {@link PublishClient}, validated and with every default resolved by
 * {@link PublishClient.Builder#connect()}: the only thing the client reads. Immutable.
 *
 * @param gateway          the gateway's fixed address, tried once at the first connection; null with a locator.
 * @param locator          names the gateway at each reconnection (and the first connection without a fixed one).
 * @param maxMessageLength the longest message the client publishes.
 * @param secret           the shared secret, or null for an insecure gateway; not to be changed.
 * @param timeout          how long the connection, the handshake, a publish waiting for room and a reconnection
 *                         wait.
 * @param heartbeatInterval how long the client, in a call, sends nothing before it sends a HEARTBEAT.
 * @param livenessTimeout  how long the gateway may send nothing before the client declares it dead.
 * @param clientId         the id every PUBLISH carries, not 0.
 * @param resendCapacity   the bytes of the copy of the publishes not yet committed.
 * @param epochClock       the wall clock, in milliseconds since the epoch.
 * @param nanoClock        the clock of every deadline of the client.
 */
record ClientConfig(InetSocketAddress gateway, GatewayLocator locator, int maxMessageLength, byte[] secret,
                    Duration timeout, Duration heartbeatInterval, Duration livenessTimeout, long clientId,
                    int resendCapacity, EpochClock epochClock, NanoClock nanoClock) {
    /** Copies what could change under it. */
    ClientConfig {
        secret = secret == null ? null : secret.clone();
    }
}
