package dev.spool.replication;

import dev.spool.replication.protocol.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.TimeUnit;

/**
 * A {@link PublishClient}'s watch over its connection to the gateway, on the client's thread, at each pass of its
 * calls: a HEARTBEAT when the client has sent nothing for its heartbeat interval; the gateway declared dead when it
 * has sent nothing (no commit, no heartbeat) for the liveness timeout, as a frozen or cut-off process does while its
 * sockets stay open; and, with a locator that counts its changes ({@link GatewayLocator#generation()}), the gateway
 * left as soon as the locator names another or none. The client reads its socket before each look, so a pause of the
 * client itself (a call made after a long while) never counts as the gateway's silence. Allocates nothing but when it
 * gives up on a gateway.
 */
final class GatewayWatch {
    /** The longest a client's wait sleeps between two looks, so a change of the locator is seen at once. */
    static final long LOOK_MS = 10;
    private static final Logger LOG = LoggerFactory.getLogger(PublishClient.class);

    private final GatewayLocator locator;
    /** True if the client reconnects through its locator: false for a fixed address, whose calls fail instead. */
    private final boolean follows;
    private final long heartbeatNs;
    private final long livenessNs;
    private final long clientId;
    /** The locator's {@link GatewayLocator#generation()} when the client last asked it for a gateway. */
    private long generation;

    GatewayWatch(final GatewayLocator locator, final boolean follows, final long heartbeatNs, final long livenessNs,
                 final long clientId) {
        this.locator = locator;
        this.follows = follows;
        this.heartbeatNs = heartbeatNs;
        this.livenessNs = livenessNs;
        this.clientId = clientId;
    }

    /** Before the client asks the locator for a gateway: a change from now on is a reason to ask again. */
    void asking() {
        generation = locator.generation();
    }

    /** @return true if a look is due before a send: the gateway has been silent long, or the locator changed. */
    boolean due(final Connection connection, final long now) {
        return now - connection.lastReceivedNs() > livenessNs || locator.generation() != generation;
    }

    /**
     * A look at an open session, once the client has read what its socket held: sends a HEARTBEAT if due.
     *
     * @throws IOException naming the gateway, if it has been silent past the liveness timeout or the locator names
     *                     another gateway, or none, now; or if the heartbeat cannot be written.
     */
    void check(final Connection connection, final InetSocketAddress gateway, final long now) throws IOException {
        checkAlive(connection, gateway, now);
        if (connection.sendIdle() && now - connection.lastSentNs() > heartbeatNs) {
            connection.sendHeartbeat();
            connection.flush();
        }
    }

    /**
     * A look during the handshake, when the client may send nothing but the handshake's frames.
     *
     * @throws IOException naming the gateway, if it has been silent past the liveness timeout or the locator names
     *                     another gateway, or none, now.
     */
    void checkAlive(final Connection connection, final InetSocketAddress gateway, final long now) throws IOException {
        final long silentNs = now - connection.lastReceivedNs();
        if (silentNs > livenessNs) {
            final String why = "the publish gateway at " + gateway + " sent nothing for "
                    + TimeUnit.NANOSECONDS.toMillis(silentNs) + " ms, past the client's liveness timeout of "
                    + TimeUnit.NANOSECONDS.toMillis(livenessNs) + " ms: declared dead (frozen, or cut off)";
            LOG.warn("client 0x{}: {}; {}", Long.toHexString(clientId), why,
                    follows ? "asking its locator for the gateway now" : "failing the call");
            throw new IOException(why);
        }
        if (follows && locator.generation() != generation) {
            asking();
            InetSocketAddress named;
            String none = null;
            try {
                named = locator.gateway();
            } catch (IOException e) {
                named = null;
                none = e.getMessage();
            }
            if (!gateway.equals(named)) {
                final String why = "the locator names " + (named != null ? "the publish gateway at " + named
                        : "no publish gateway now (" + none + ")") + " instead of the one at " + gateway;
                LOG.info("client 0x{} leaves the publish gateway at {}: {}", Long.toHexString(clientId), gateway,
                        why);
                throw new IOException(why);
            }
        }
    }

    /** @return how long a wait with {@code leftNs} to go may sleep before the next look, in ms, at least 1. */
    static long sleepMs(final long leftNs) {
        return Math.max(1, Math.min(LOOK_MS, TimeUnit.NANOSECONDS.toMillis(leftNs)));
    }
}
