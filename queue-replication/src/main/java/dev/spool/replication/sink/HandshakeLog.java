package dev.spool.replication.sink;

import dev.spool.replication.agent.RepeatedLog;
import dev.spool.replication.protocol.Connection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;

import static dev.spool.replication.protocol.FrameDescriptor.ERROR_AUTHENTICATION;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_BUSY;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_FETCH;

/**
 * The sink's log of failed and unfinished handshakes: a peer may repeat them at will, so each kind is logged the
 * first time, then with a count ({@link RepeatedLog}); a failure of the source that holds the replica always is.
 * The sink's agent only.
 */
final class HandshakeLog {
    private static final Logger LOG = LoggerFactory.getLogger(SinkConfig.LOGGER);

    private final Path directory;
    /** Failed handshakes, until a source streams. */
    private final RepeatedLog refused = new RepeatedLog();
    /** Handshakes closed unfinished: a peer that connects and sends nothing, or goes, or loses its place. */
    private final RepeatedLog abandoned = new RepeatedLog();

    HandshakeLog(final Path directory) {
        this.directory = directory;
    }

    /** A connection closed for what it sent: {@code holder} if it held the replica. */
    void closing(final boolean holder, final Object peer, final String why) {
        final long count = refused.next();
        if (holder || count > 0) {
            LOG.warn("replication sink of {}: closing the connection from {}: {}{}", directory, peer, why,
                    RepeatedLog.times(count));
        }
    }

    /** A peer ended its handshake with an ERROR: {@code holder} if it held the replica. */
    void peerError(final boolean holder, final String message) {
        final long count = refused.next();
        if (holder || count > 0) {
            LOG.warn("replication sink of {}: {}{}", directory, message, RepeatedLog.times(count));
        }
    }

    /** @param role "source", or "repairer" for a peer fetching excerpts. */
    void refusal(final Connection connection, final Refusal e, final String role) {
        if (e.code() == ERROR_AUTHENTICATION) {
            final long count = refused.next();
            if (count > 0) {
                LOG.warn("replication sink of {}: refusing the {} at {}: {}{}", directory, role, connection.peer(),
                        e.getMessage(), RepeatedLog.times(count));
            }
        } else if (e.code() == ERROR_BUSY || e.code() == ERROR_FETCH) {
            // a busy sink is retried; a range the replica cannot send is the repairer's to report
            LOG.info("replication sink of {}: refusing the {} at {}: {}", directory, role, connection.peer(),
                    e.getMessage());
        } else {
            LOG.error("replication sink of {}: refusing the {} at {}: {}", directory, role, connection.peer(),
                    e.getMessage());
        }
    }

    /** A handshake closed unfinished. */
    void abandoned(final Object peer, final String why) {
        final long count = abandoned.next();
        if (count > 0) {
            LOG.info("replication sink of {}: closing the unfinished handshake of {}: {}{}", directory, peer, why,
                    RepeatedLog.times(count));
        }
    }

    /** A source streams: the failed handshakes before it are counted in one line, and the count starts again. */
    void streaming() {
        if (refused.count() > 1) {
            LOG.info("replication sink of {}: {} handshakes failed before this one", directory, refused.count());
        }
        refused.reset();
    }
}
