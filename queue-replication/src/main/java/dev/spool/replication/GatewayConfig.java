package dev.spool.replication;

import dev.spool.queue.SpoolQueue;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.ThreadFactory;

/**
 * The settings of a {@link PublishGateway}, validated and with every default resolved by
 * {@link PublishGateway.Builder#start()}: the only thing the gateway reads. Immutable.
 *
 * @param queue                    the primary queue appended to.
 * @param source                   the source replicating it, or null.
 * @param maxFrameLength           the largest PUBLISH frame, with its MAC: the queue's longest message.
 * @param bindAddress              the address listened on.
 * @param port                     the port listened on; 0 for any free one.
 * @param maxConnections           the most clients at once.
 * @param maxConnectionsPerAddress the most clients from one address.
 * @param maxPendingCommits        the most commits waiting for their stage.
 * @param maxBytesInFlight         the bound on all clients' buffers.
 * @param handshakeTimeout         the time a client has to prove the secret.
 * @param idleTimeout              the time a silent client is kept.
 * @param heartbeatInterval        the time the gateway sends a client nothing before it sends a HEARTBEAT.
 * @param rebuildExcerpts          the queue's last excerpts read at start for each client's last publishes.
 * @param maxPublishers            the most client ids whose last publishes are held.
 * @param maxSleepMs               the longest sleep of the default idle strategy while a commit waits.
 * @param secret                   the shared secret, or null when {@code insecure}; not to be changed.
 * @param insecure                 true if the gateway runs without a shared secret.
 * @param invoked                  true if the application runs the gateway's passes.
 * @param idleStrategy             the idle strategy of its own thread, or null for the default.
 * @param epochClock               the wall clock, in milliseconds since the epoch.
 * @param nanoClock                the clock of the handshake and idle timeouts and of the log's rate limits.
 * @param errorHandler             given each error a pass lets out, after the agent host counted and logged it:
 *                                 the queue's by default.
 * @param threadFactory            makes its own thread: the queue's by default.
 */
record GatewayConfig(SpoolQueue queue, ReplicationSource source, int maxFrameLength, InetAddress bindAddress, int port,
                     int maxConnections, int maxConnectionsPerAddress, int maxPendingCommits, long maxBytesInFlight,
                     Duration handshakeTimeout, Duration idleTimeout, Duration heartbeatInterval,
                     long rebuildExcerpts, int maxPublishers, long maxSleepMs, byte[] secret,
                     boolean insecure, boolean invoked, IdleStrategy idleStrategy, EpochClock epochClock,
                     NanoClock nanoClock, ErrorHandler errorHandler, ThreadFactory threadFactory) {
    /** Copies what could change under it. */
    GatewayConfig {
        secret = secret == null ? null : secret.clone();
    }
}
