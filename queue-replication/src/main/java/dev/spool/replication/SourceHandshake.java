package dev.spool.replication;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.QueueInternals;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;

import static dev.spool.replication.FrameDescriptor.ERROR_AUTHENTICATION;
import static dev.spool.replication.FrameDescriptor.ERROR_BUSY;
import static dev.spool.replication.FrameDescriptor.ERROR_DIVERGED;
import static dev.spool.replication.FrameDescriptor.ERROR_FENCED;
import static dev.spool.replication.FrameDescriptor.ERROR_PROTOCOL;
import static dev.spool.replication.FrameDescriptor.ERROR_WRITE_FAILED;
import static dev.spool.replication.FrameDescriptor.HELLO_LENGTH;
import static dev.spool.replication.FrameDescriptor.MAGIC;
import static dev.spool.replication.FrameDescriptor.START_LENGTH;
import static dev.spool.replication.FrameDescriptor.START_MAC_OFFSET;
import static dev.spool.replication.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.FrameDescriptor.TYPE_HELLO;
import static dev.spool.replication.FrameDescriptor.TYPE_START;
import static dev.spool.replication.FrameDescriptor.TYPE_WELCOME;
import static dev.spool.replication.FrameDescriptor.WELCOME_LENGTH;
import static dev.spool.replication.FrameDescriptor.WELCOME_MAC_OFFSET;
import static dev.spool.replication.FrameDescriptor.typeName;

/**
 * The source's side of the handshake, once per connection: sends HELLO, checks the sink's WELCOME (its proof of the
 * shared secret, its term, and that its last excerpt is the source's at the same index), and sends START. A sink of
 * a later term fences the source's queue; a mismatch is told to the sink in an ERROR frame and stops the source.
 * With a secret, nothing the sink says is acted on before its WELCOME proved the secret: an ERROR in answer to
 * HELLO, or a WELCOME with a wrong MAC, is a failed connection, retried with back-off; it never fences the queue or
 * stops the source. Without one ({@code insecure()}), the sink is trusted as it is.
 * Non-blocking, a step per pass of the source's agent, as a state machine: {@link #begin()} queues HELLO, and
 * {@link #step(ExcerptTailer)} writes what is pending, reads the WELCOME when it has come, queues START and reports
 * when START is on the wire; the whole exchange must end within three heartbeat intervals. Allocation is fine here.
 */
final class SourceHandshake {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicationSource.class);
    private final SpoolQueue queue;
    private final QueueInternals internals;
    private final InetSocketAddress sink;
    private final Connection connection;
    private final byte[] secret;
    private final int frameLimit;
    private final long heartbeatNs;
    private final HelloFlyweight hello = new HelloFlyweight();
    private final WelcomeFlyweight welcome = new WelcomeFlyweight();
    private final StartFlyweight start = new StartFlyweight();
    private final ErrorFlyweight error = new ErrorFlyweight();
    private byte[] sourceNonce;
    private byte[] helloSent;
    private long term;
    private long deadlineNs;
    private boolean startQueued;
    private long sinkLast;

    SourceHandshake(final SpoolQueue queue, final InetSocketAddress sink, final Connection connection,
                    final byte[] secret, final int frameLimit, final long heartbeatNs) {
        this.queue = queue;
        this.internals = QueueInternals.of(queue);
        this.sink = sink;
        this.connection = connection;
        this.secret = secret;
        this.frameLimit = frameLimit;
        this.heartbeatNs = heartbeatNs;
    }

    /** Starts the handshake on a freshly attached connection: queues HELLO for the next {@link #step}. */
    void begin() {
        sourceNonce = Handshake.nonce();
        term = internals.term();
        startQueued = false;
        sinkLast = -1;
        deadlineNs = System.nanoTime() + 3 * heartbeatNs;
        final int offset = connection.beginFrame(TYPE_HELLO);
        hello.wrap(connection.send(), offset).magic(MAGIC).rollCycleId(queue.rollCycle().id()).queueId(queue.queueId())
                .epochMillis(queue.epochMillis()).term(term).lastIndex(queue.lastIndex())
                .maxMessageLength(queue.maxMessageLength()).frameLimit(frameLimit).features(internals.features())
                .roll(internals.calendar().rollTime(), internals.calendar().zone()).nonce(sourceNonce);
        connection.endFrame(offset, HELLO_LENGTH);
        helloSent = Handshake.copy(connection.send(), offset, HELLO_LENGTH);
    }

    /**
     * One step, without blocking: writes what is pending, or reads the WELCOME if it has come and answers START.
     *
     * @param tailer the source's tailer, left where streaming resumes: after the sink's last index.
     * @return true once START is on the wire: {@link #sinkLast()} tells where the stream resumes.
     * @throws ReplicationException if replication cannot go on: mismatch, divergence, authentication, fencing.
     * @throws IOException          if the connection failed, the sink sent a bad frame or took too long: retried.
     */
    boolean step(final ExcerptTailer tailer) throws IOException {
        if (!connection.flush()) {
            checkDeadline(true);
            return false;
        }
        if (startQueued) {
            LOG.info("replication source of {}: connected to {}, resuming after index {}", queue.directory(), sink,
                    sinkLast);
            return true;
        }
        connection.receive();
        if (!connection.nextFrame()) {
            checkDeadline(false);
            return false;
        }
        onReply(tailer);
        return step(tailer);
    }

    /** @return the sink's last index, -1 if it has none; once {@link #step} returned true. */
    long sinkLast() {
        return sinkLast;
    }

    private void onReply(final ExcerptTailer tailer) throws IOException {
        if (connection.frameType() == TYPE_ERROR) {
            onRefused();
        }
        if (connection.frameType() != TYPE_WELCOME) {
            throw new FrameException(typeName(connection.frameType()) + " frame from " + sink + " where WELCOME was expected");
        }
        welcome.wrap(connection.received(), connection.frameOffset()).check(String.valueOf(sink));
        final long last = welcome.lastIndex();
        final long sinkChecksum = welcome.checksum();
        final long sinkTerm = welcome.term();
        final byte[] sinkNonce = welcome.nonce();
        final byte[] sinkMac = welcome.mac();
        final byte[] welcomeReceived = Handshake.copy(connection.received(), connection.frameOffset(), WELCOME_LENGTH);
        final byte[] welcomeProved = Handshake.copy(connection.received(), connection.frameOffset(), WELCOME_MAC_OFFSET);
        connection.consumeFrame();
        if (!Handshake.verify(secret, Handshake.mac(secret, Handshake.SINK_LABEL, helloSent, welcomeProved), sinkMac)) {
            final String message = "the sink at " + sink + " did not prove the shared secret: its WELCOME's MAC is"
                    + " wrong, so the sink's secret differs from this source's (or the peer is not that sink); nothing"
                    + " it sent is acted on";
            tell(ERROR_AUTHENTICATION, "the source of term " + term + " refuses the sink's WELCOME: its MAC is wrong,"
                    + " so the sink's secret differs from the source's");
            throw new AuthenticationException(message);
        }
        if (sinkTerm > term) {
            fence(sinkTerm);
        }
        checkHistory(tailer, last, sinkChecksum);
        final int offset = connection.beginFrame(TYPE_START, START_LENGTH);
        start.wrap(connection.send(), offset).resumeAfter(last);
        start.mac(Handshake.mac(secret, Handshake.SOURCE_LABEL, helloSent, welcomeReceived,
                Handshake.copy(connection.send(), offset, START_MAC_OFFSET)));
        connection.endFrame(offset, START_LENGTH);
        if (secret != null) {
            connection.authenticate(Handshake.sessionKey(secret, Handshake.SOURCE_FRAMES_LABEL, sourceNonce, sinkNonce),
                    Handshake.sessionKey(secret, Handshake.SINK_FRAMES_LABEL, sourceNonce, sinkNonce));
        }
        sinkLast = last;
        startQueued = true;
    }

    /** @param writing true while a frame waits to be written, false while the reply is awaited. */
    private void checkDeadline(final boolean writing) throws IOException {
        if (System.nanoTime() - deadlineNs > 0) {
            throw new IOException(writing ? "the sink at " + sink + " reads nothing"
                    : "no handshake reply from " + sink + " in time");
        }
    }

    /**
     * The sink answered HELLO with ERROR. With a secret, only what the sink proved is acted on: an ERROR with a MAC
     * under {@link Handshake#refusalKey} (fresh: it saw this HELLO) is acted on in full; one with a MAC under
     * {@link Handshake#termKey} (a busy sink, not fresh) for its term only, which fences the queue if it is later;
     * any other is reported and retried. Without a secret, a sink of a later term fences the queue, and a mismatch
     * stops the source; a passing error is retried.
     */
    private void onRefused() throws IOException {
        error.wrap(connection.received(), connection.frameOffset());
        final boolean authentic = secret != null && isAuthenticRefusal();
        final boolean termAuthentic = secret != null && !authentic && isAuthentic(Handshake.termKey(secret));
        final int code = error.code();
        final String reason = error.message(connection.frameLength()
                - (authentic || termAuthentic ? FrameMac.TAG_LENGTH : 0));
        if (code == ERROR_AUTHENTICATION) {
            throw new AuthenticationException("the sink at " + sink + " refused this source's proof of the shared"
                    + " secret (" + reason + "): check this source's secret" + (secret == null
                    ? " (this source is insecure(): it has none)" : ", it differs from the sink's"));
        }
        if (secret != null && !authentic) {
            if (termAuthentic && error.term() > term) {
                // a busy sink that knows the secret states its term: a later term, once it exists, stays true
                fence(error.term());
            }
            throw new IOException("the sink at " + sink + (termAuthentic ? "" : ", not authenticated,")
                    + " answered HELLO with error " + code + " (term " + error.term() + "): " + reason
                    + (termAuthentic ? "" : "; ignored") + ", retrying");
        }
        if (error.term() > term) {
            fence(error.term());
        }
        final String message = "the sink at " + sink + " refused the handshake with error " + code + ": " + reason;
        if (code == ERROR_PROTOCOL || code == ERROR_WRITE_FAILED || code == ERROR_BUSY) {
            throw new IOException(message);
        }
        throw new ReplicationException(message);
    }

    /** @return true if the ERROR frame ends with the MAC of a sink that knows the secret and saw this HELLO. */
    private boolean isAuthenticRefusal() {
        return isAuthentic(Handshake.refusalKey(secret, sourceNonce));
    }

    /** @return true if the ERROR frame ends with a MAC under {@code key}. */
    private boolean isAuthentic(final byte[] key) {
        final int length = connection.frameLength() - FrameMac.TAG_LENGTH;
        if (length < ErrorFlyweight.frameLength(0)) {
            return false;
        }
        final FrameMac mac = new FrameMac();
        mac.key(key);
        return mac.verify(connection.received(), connection.frameOffset(), length);
    }

    /** The sink must hold a prefix of the source's history: its last excerpt is the source's at that index. */
    private void checkHistory(final ExcerptTailer tailer, final long sinkLast, final long sinkChecksum)
            throws ReplicationException {
        final long sourceLast = queue.lastIndex();
        if (sinkLast > sourceLast) {
            refuse(ERROR_DIVERGED, "the sink at " + sink + " is ahead of the source: its last index is " + sinkLast
                    + ", the source's " + sourceLast + " in " + queue.directory() + "; it holds excerpts the source does"
                    + " not, which are reported, never merged");
        }
        if (sinkLast < 0) {
            tailer.toStart();
            return;
        }
        final long checksum = Handshake.checksumAt(tailer, sinkLast);
        if (checksum < 0) {
            refuse(ERROR_DIVERGED, "the source " + queue.directory() + " has no excerpt at the sink's last index "
                    + sinkLast + " (deleted by retention, or never written here)");
        }
        if (checksum != sinkChecksum) {
            refuse(ERROR_DIVERGED, String.format("divergent history: the excerpt at index %d has CRC-32C 0x%08x on"
                    + " the sink at %s and 0x%08x in the source %s", sinkLast, sinkChecksum, sink, checksum,
                    queue.directory()));
        }
    }

    /** Fences this queue: the sink has seen a later primary. What was never acknowledged is reported, not merged. */
    private void fence(final long sinkTerm) throws ReplicationException {
        internals.fence(sinkTerm);
        final long lastAcked = internals.lastAckedIndex();
        final long last = queue.lastIndex();
        final String divergence = last > lastAcked
                ? "indices after " + lastAcked + " up to " + last + " were written here and never acknowledged by a replica;"
                + " the new primary may not have them, and they are not replicated"
                : "every index it wrote was acknowledged (up to " + lastAcked + ")";
        refuse(ERROR_FENCED, "queue " + queue.directory() + " of term " + internals.term() + " is fenced: the sink at " + sink
                + " has term " + sinkTerm + ", so a later primary exists; " + divergence);
    }

    private void refuse(final int code, final String message) throws ReplicationException {
        tell(code, message);
        throw new ReplicationException(message);
    }

    /** Best effort: sends the sink an ERROR frame saying why this connection ends. */
    private void tell(final int code, final String message) {
        connection.sendError(code, internals.term(), message);
        try {
            connection.flush();
        } catch (IOException e) {
            LOG.info("replication source of {}: could not tell {} why it stops: {}", queue.directory(), sink, e.toString());
        }
    }
}
