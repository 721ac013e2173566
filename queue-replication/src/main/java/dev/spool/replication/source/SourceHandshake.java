package dev.spool.replication.source;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.TermHistory;
import dev.spool.replication.protocol.AuthenticationException;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.FrameException;
import dev.spool.replication.protocol.FrameMac;
import dev.spool.replication.protocol.Handshake;
import dev.spool.replication.protocol.HelloFlyweight;
import dev.spool.replication.protocol.PeerText;
import dev.spool.replication.protocol.ResumeFlyweight;
import dev.spool.replication.protocol.StartFlyweight;
import dev.spool.replication.protocol.WelcomeFlyweight;
import org.agrona.concurrent.NanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;

import static dev.spool.replication.protocol.FrameDescriptor.ERROR_AUTHENTICATION;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_BEHIND_RETENTION;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_BUSY;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_DIVERGED;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_FENCED;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_PROTOCOL;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_QUEUE_MISMATCH;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_WRITE_FAILED;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.MAGIC;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_HELLO;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_START;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_RESUME;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_WELCOME;
import static dev.spool.replication.protocol.FrameDescriptor.WELCOME_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.WELCOME_MAC_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.startLength;
import static dev.spool.replication.protocol.FrameDescriptor.typeName;

/**
 * The source's side of the handshake, once per connection: sends HELLO, checks the sink's WELCOME (its proof of the
 * shared secret), sends START (the source's proof and its queue's term history), then checks the sink's RESUME (its
 * term; that its term history gives every index it holds the term the source's gives it, so that it holds the source's
 * excerpts there; and that its last excerpt is the source's at the same index) and starts the session with a
 * HEARTBEAT. A sink of a later term fences
 * the source's queue; a mismatch is told to the sink in an ERROR frame and stops the source.
 * With a secret, nothing the sink says is acted on unless it proved the secret in this handshake: an ERROR before
 * START, a WELCOME or RESUME with a wrong MAC, an ERROR after START without a MAC under
 * {@link Handshake#refusalKey} of this handshake, is a failed connection, retried with back-off; it never fences the
 * queue or stops the source. Without one ({@code insecure()}), the sink is trusted as it is.
 * Non-blocking, a step per pass of the source's agent, as a state machine: {@link #begin()} queues HELLO, and
 * {@link #step(ExcerptTailer)} writes what is pending, reads the sink's frames when they have come, answers them, and
 * reports when the session's first frame is on the wire; the whole exchange must end within three heartbeat
 * intervals. Allocation is fine here.
 */
final class SourceHandshake {
    private static final Logger LOG = LoggerFactory.getLogger(SourceConfig.LOGGER);
    private final SpoolQueue queue;
    private final QueueInternals internals;
    private final InetSocketAddress sink;
    private final Connection connection;
    private final byte[] secret;
    private final int frameLimit;
    private final long heartbeatNs;
    private final NanoClock clock;
    private final HelloFlyweight hello = new HelloFlyweight();
    private final WelcomeFlyweight welcome = new WelcomeFlyweight();
    private final StartFlyweight start = new StartFlyweight();
    private final ResumeFlyweight resume = new ResumeFlyweight();
    private final ErrorFlyweight error = new ErrorFlyweight();
    private byte[] sourceNonce;
    private byte[] sinkNonce;
    private byte[] helloSent;
    private byte[] welcomeReceived;
    private byte[] startSent;
    private long term;
    /** The source queue's term history at {@link #begin()}, sent in START and checked against the sink's. */
    private TermHistory history;
    private long deadlineNs;
    /** START is sent: the next frame is RESUME or a refusal. */
    private boolean startQueued;
    /** RESUME is accepted and the session's first frame queued: done once it is on the wire. */
    private boolean resumed;
    private long sinkLast;

    SourceHandshake(final SpoolQueue queue, final InetSocketAddress sink, final Connection connection,
                    final byte[] secret, final int frameLimit, final long heartbeatNs, final NanoClock clock) {
        this.queue = queue;
        this.internals = queue.unwrap(QueueInternals.class);
        this.sink = sink;
        this.connection = connection;
        this.secret = secret;
        this.frameLimit = frameLimit;
        this.heartbeatNs = heartbeatNs;
        this.clock = clock;
    }

    /** Starts the handshake on a freshly attached connection: queues HELLO for the next {@link #step}. */
    void begin() {
        sourceNonce = Handshake.nonce();
        term = internals.term();
        history = internals.termHistory();
        startQueued = false;
        resumed = false;
        sinkLast = -1;
        deadlineNs = clock.nanoTime() + 3 * heartbeatNs;
        final int offset = connection.beginFrame(TYPE_HELLO);
        hello.wrap(connection.send(), offset).magic(MAGIC).rollCycleId(queue.rollCycle().id()).queueId(queue.queueId())
                .epochMillis(queue.epochMillis()).term(term).lastIndex(queue.lastIndex())
                .maxMessageLength(queue.maxMessageLength()).frameLimit(frameLimit).features(internals.features())
                .roll(internals.calendar().rollTime(), internals.calendar().zone()).nonce(sourceNonce);
        connection.endFrame(offset, HELLO_LENGTH);
        helloSent = Handshake.copy(connection.send(), offset, HELLO_LENGTH);
    }

    /**
     * One step, without blocking: writes what is pending, or reads the sink's next frame if it has come and answers.
     *
     * @param tailer the source's tailer, left where streaming resumes: after the sink's last index.
     * @return true once the session's first frame is on the wire: {@link #sinkLast()} tells where the stream resumes.
     * @throws ReplicaStopped if replication cannot go on: mismatch, divergence, fencing.
     * @throws AuthenticationException if the sink did not prove the secret, or refused this source's proof: retried.
     * @throws IOException          if the connection failed, the sink sent a bad frame or took too long: retried.
     */
    boolean step(final ExcerptTailer tailer) throws IOException {
        if (!connection.flush()) {
            checkDeadline(true);
            return false;
        }
        if (resumed) {
            LOG.info("replication source of {}: connected to {}, resuming after index {}", queue.directory(), sink,
                    sinkLast);
            return true;
        }
        connection.receive();
        if (!connection.nextFrame()) {
            checkDeadline(false);
            return false;
        }
        if (startQueued) {
            onResume(tailer);
        } else {
            onWelcome();
        }
        return step(tailer);
    }

    /** @return the sink's last index, -1 if it has none; once {@link #step} returned true. */
    long sinkLast() {
        return sinkLast;
    }

    private void onWelcome() throws IOException {
        if (connection.frameType() == TYPE_ERROR) {
            onRefusedBeforeProof();
        }
        if (connection.frameType() != TYPE_WELCOME) {
            throw new FrameException(typeName(connection.frameType()) + " frame from " + sink + " where WELCOME was expected");
        }
        welcome.wrap(connection.received(), connection.frameOffset());
        sinkNonce = welcome.nonce();
        final byte[] sinkMac = welcome.mac();
        welcomeReceived = Handshake.copy(connection.received(), connection.frameOffset(), WELCOME_LENGTH);
        final byte[] welcomeProved = Handshake.copy(connection.received(), connection.frameOffset(), WELCOME_MAC_OFFSET);
        connection.consumeFrame();
        if (!Handshake.verify(secret, Handshake.mac(secret, Handshake.SINK_LABEL, helloSent, welcomeProved), sinkMac)) {
            throw unproved("WELCOME");
        }
        final int length = startLength(history.size());
        final int offset = connection.beginFrame(TYPE_START, length);
        start.wrap(connection.send(), offset).termHistory(history);
        start.mac(Handshake.mac(secret, Handshake.SOURCE_LABEL, helloSent, welcomeReceived,
                Handshake.copy(connection.send(), offset, start.macOffset())));
        connection.endFrame(offset, length);
        startSent = Handshake.copy(connection.send(), offset, length);
        startQueued = true;
    }

    private void onResume(final ExcerptTailer tailer) throws IOException {
        if (connection.frameType() == TYPE_ERROR) {
            onRefused();
        }
        if (connection.frameType() != TYPE_RESUME) {
            throw new FrameException(typeName(connection.frameType()) + " frame from " + sink + " where RESUME was expected");
        }
        resume.wrap(connection.received(), connection.frameOffset()).check(String.valueOf(sink), connection.frameLength());
        final long last = resume.lastIndex();
        final long sinkChecksum = resume.checksum();
        final long sinkTerm = resume.term();
        final TermHistory sinkHistory = resume.termHistory();
        final byte[] sinkMac = resume.mac();
        final byte[] resumeProved = Handshake.copy(connection.received(), connection.frameOffset(), resume.macOffset());
        connection.consumeFrame();
        if (!Handshake.verify(secret, Handshake.mac(secret, Handshake.RESUME_LABEL, helloSent, welcomeReceived,
                startSent, resumeProved), sinkMac)) {
            throw unproved("RESUME");
        }
        if (secret != null) {
            connection.authenticate(Handshake.sessionKey(secret, Handshake.SOURCE_FRAMES_LABEL, sourceNonce, sinkNonce),
                    Handshake.sessionKey(secret, Handshake.SINK_FRAMES_LABEL, sourceNonce, sinkNonce));
        }
        if (sinkTerm > term) {
            fence(sinkTerm);
        }
        checkHistory(tailer, last, sinkChecksum, sinkHistory);
        // the session's first frame tells the sink this source accepts its history: it opens the replica then
        connection.sendHeartbeat();
        sinkLast = last;
        resumed = true;
    }

    /** @return the failure of a sink that did not prove the secret, which it is told. */
    private AuthenticationException unproved(final String frame) {
        tell(ERROR_AUTHENTICATION, "the source of term " + term + " refuses the sink's " + frame + ": its MAC is wrong,"
                + " so the sink's secret differs from the source's");
        return new AuthenticationException("the sink at " + sink + " did not prove the shared secret: its " + frame
                + "'s MAC is wrong, so the sink's secret differs from this source's (or the peer is not that sink, or"
                + " a frame was altered on the way); nothing it sent is acted on");
    }

    /** @param writing true while a frame waits to be written, false while the reply is awaited. */
    private void checkDeadline(final boolean writing) throws IOException {
        if (clock.nanoTime() - deadlineNs > 0) {
            throw new IOException(writing ? "the sink at " + sink + " reads nothing"
                    : "no handshake reply from " + sink + " in time");
        }
    }

    /**
     * The sink answered HELLO with ERROR. Before START a sink has nothing proved to refuse with, and this source has
     * proved nothing it could refuse, so with a secret no code is acted on: the peer's text is reported quoted, and
     * the connection retried. Without a secret, the sink is trusted.
     */
    private void onRefusedBeforeProof() throws IOException {
        if (secret == null) {
            onRefused();
        }
        error.wrap(connection.received(), connection.frameOffset());
        // this source proved nothing yet, so no sink refuses its proof here: whatever the code, the peer is retried
        throw new IOException("the sink at " + sink + " answered HELLO with error " + error.code() + " before it proved"
                + " the shared secret; " + PeerText.said(sink, error.message(connection.frameLength()))
                + "; ignored, retrying");
    }

    /**
     * The sink answered START with ERROR. With a secret, only a refusal with a MAC under {@link Handshake#refusalKey}
     * of this handshake is acted on: the sink proved the secret and saw this HELLO, WELCOME and START. A later term
     * in it fences the queue (but a sink of another queue fences nothing); a mismatch stops the source; a passing
     * error (busy, protocol, a write that failed) is retried. Any other refusal is retried, and a refused proof is
     * counted. Without a secret, the sink is trusted.
     */
    private void onRefused() throws IOException {
        error.wrap(connection.received(), connection.frameOffset());
        final boolean authentic = secret != null && startQueued && isAuthenticRefusal();
        final int code = error.code();
        final String text = error.message(connection.frameLength() - (authentic ? FrameMac.TAG_LENGTH : 0));
        final String reason = authentic ? "the sink said: " + text : PeerText.said(sink, text);
        if (code == ERROR_AUTHENTICATION) {
            throw refusedProof(reason);
        }
        if (secret != null && !authentic) {
            throw new IOException("the sink at " + sink + " answered START with error " + code + " (term "
                    + error.term() + ") without proving the shared secret; " + reason + "; ignored, retrying");
        }
        if (error.term() > term && code != ERROR_QUEUE_MISMATCH) {
            fence(error.term());
        }
        final String message = "the sink at " + sink + " refused the handshake with error " + code + "; " + reason;
        if (code == ERROR_PROTOCOL || code == ERROR_WRITE_FAILED || code == ERROR_BUSY) {
            throw new IOException(message);
        }
        throw new ReplicaStopped(message);
    }

    private AuthenticationException refusedProof(final String reason) {
        return new AuthenticationException("the sink at " + sink + " refused this source's proof of the shared"
                + " secret: check this source's secret" + (secret == null
                ? " (this source is insecure(): it has none)" : ", it differs from the sink's") + "; " + reason);
    }

    /** @return true if the ERROR frame ends with the MAC of a sink that knows the secret and saw this handshake. */
    private boolean isAuthenticRefusal() {
        final int length = connection.frameLength() - FrameMac.TAG_LENGTH;
        if (length < ErrorFlyweight.frameLength(0)) {
            return false;
        }
        final FrameMac mac = new FrameMac();
        mac.key(Handshake.refusalKey(secret, helloSent, welcomeReceived, startSent));
        return mac.verify(connection.received(), connection.frameOffset(), length);
    }

    /**
     * The sink must hold a prefix of the source's log. Its term history must give every index it holds the term the
     * source's gives it: one primary wrote each term, and every replica of a term took it from that primary after this
     * same check, so equal terms at an index mean equal excerpts, and from the first index where the terms differ the
     * excerpts may differ too, whatever the sink's last excerpt is. A sink ahead of the source, or holding that first
     * differing index, is refused as divergent; one whose last index is below the oldest cycle left here is told to
     * rebuild ({@link #behindRetention}); and its last excerpt must be the source's at that index.
     */
    private void checkHistory(final ExcerptTailer tailer, final long sinkLast, final long sinkChecksum,
                              final TermHistory sinkHistory) throws IOException {
        final long sourceLast = queue.lastIndex();
        final long firstDifference = history.firstDifference(sinkHistory);
        if (sinkLast > sourceLast) {
            refuse(ERROR_DIVERGED, "the sink at " + sink + " is ahead of the source: its last index is "
                    + IndexFormat.format(sinkLast, queue.rollCycle()) + ", the source's "
                    + IndexFormat.format(sourceLast, queue.rollCycle()) + " in " + queue.directory() + "; it holds excerpts the source does"
                    + " not, which are reported, never merged" + (firstDifference <= sinkLast
                    ? "; " + termDivergence(firstDifference, sinkHistory, sinkLast, sourceLast) : ""));
        }
        if (sinkLast < 0) {
            tailer.toStart();
            return;
        }
        if (firstDifference <= sinkLast) {
            refuse(ERROR_DIVERGED, "divergent term history: " + termDivergence(firstDifference, sinkHistory, sinkLast,
                    sourceLast) + "; the sink's excerpts from there on may differ from the source's, whatever its"
                    + " last excerpt, and are reported, never merged");
        }
        final long checksum = Handshake.checksumAt(tailer, sinkLast);
        if (checksum < 0 && isBelowRetention(sinkLast)) {
            behindRetention(sinkLast);
        }
        if (checksum < 0) {
            refuse(ERROR_DIVERGED, "the source " + queue.directory() + " has no excerpt at the sink's last index "
                    + IndexFormat.format(sinkLast, queue.rollCycle()) + " (deleted by retention, or never written here)");
        }
        if (checksum != sinkChecksum) {
            refuse(ERROR_DIVERGED, String.format("divergent history: the excerpt at index %s has CRC-32C 0x%08x on"
                    + " the sink at %s and 0x%08x in the source %s", IndexFormat.format(sinkLast, queue.rollCycle()), sinkChecksum, sink, checksum,
                    queue.directory()));
        }
    }

    /** @return where and how the sink's term history leaves the source's, with both last indices. */
    private String termDivergence(final long index, final TermHistory sinkHistory, final long sinkLast,
                                  final long sourceLast) {
        return "the term histories of the sink at " + sink + " and the source " + queue.directory()
                + " first differ at index " + IndexFormat.format(index, queue.rollCycle()) + " (term "
                + sinkHistory.termAt(index) + " on the sink, term " + history.termAt(index) + " in the source); the"
                + " sink's last index is " + IndexFormat.format(sinkLast, queue.rollCycle()) + ", the source's "
                + IndexFormat.format(sourceLast, queue.rollCycle());
    }

    /**
     * @return true if the sink's last index lies before the source's first excerpt, in a cycle below the oldest one
     * left here: retention deleted it, and the source cannot tell whether the sink's excerpt was its own, but the sink
     * holds nothing the source contradicts.
     */
    private boolean isBelowRetention(final long sinkLast) {
        final long first = queue.firstIndex();
        return first >= 0 && queue.rollCycle().toCycle(sinkLast) < queue.rollCycle().toCycle(first);
    }

    /**
     * The sink needs excerpts retention deleted here: it is told so, sets its replica aside and rebuilds it from this
     * source's first excerpt on its next connection, which is retried as a failed one.
     */
    private void behindRetention(final long sinkLast) throws IOException {
        final String message = "the sink at " + sink + " needs the excerpts after its last index "
                + IndexFormat.format(sinkLast, queue.rollCycle()) + ", which retention deleted from the source "
                + queue.directory() + " (its first index is " + IndexFormat.format(queue.firstIndex(), queue.rollCycle())
                + "): the replica is to be set aside and rebuilt from the source's oldest cycle";
        LOG.warn("replication source of {}: {}", queue.directory(), message);
        tell(ERROR_BEHIND_RETENTION, message);
        throw new IOException(message);
    }

    /** Fences this queue: the sink has seen a later primary. What was never acknowledged is reported, not merged. */
    private void fence(final long sinkTerm) throws ReplicaStopped {
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

    private void refuse(final int code, final String message) throws ReplicaStopped {
        tell(code, message);
        throw new ReplicaStopped(message, code == ERROR_DIVERGED);
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
