package dev.spool.replication.sink;

import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.CycleCalendar;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.TermHistory;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.FrameDescriptor;
import dev.spool.replication.protocol.FrameException;
import dev.spool.replication.protocol.FrameMac;
import dev.spool.replication.protocol.Handshake;
import dev.spool.replication.protocol.HelloFlyweight;
import dev.spool.replication.protocol.ResumeFlyweight;
import dev.spool.replication.protocol.StartFlyweight;
import dev.spool.replication.protocol.WelcomeFlyweight;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Objects;
import java.util.UUID;

import static dev.spool.replication.protocol.FrameDescriptor.ERROR_AUTHENTICATION;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_BUSY;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_PROTOCOL;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_QUEUE_MISMATCH;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_RESUME;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_WELCOME;
import static dev.spool.replication.protocol.FrameDescriptor.WELCOME_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.WELCOME_MAC_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.resumeLength;

/**
 * The sink's side of the handshake of one connection. The source must prove the shared secret before the sink tells
 * it anything or does any work that grows with the replica: HELLO is only checked for its form and answered with
 * WELCOME (the sink's nonce and proof, nothing of the replica); once START proved the secret, the HELLO's queue is
 * compared with the replica (an authenticated refusal if it differs, if its frames are too large, or if another
 * source holds the replica), and RESUME tells the replica's last index, that excerpt's checksum, its term and its term
 * history. The replica is created, or takes the source's term history (from START) and term, only at the source's
 * first frame after RESUME, which says the source accepted the replica's history; it is created from a fresh builder of the sink's local settings, so nothing
 * a HELLO says reaches another connection. Runs on the sink's thread; allocation is fine here.
 */
public final class SinkHandshake {
    private final Path directory;
    private final ReplicaWriter replica;
    private final int maxFrameLength;
    private final byte[] secret;
    private final HelloFlyweight hello = new HelloFlyweight();
    private final WelcomeFlyweight welcome = new WelcomeFlyweight();
    private final StartFlyweight start = new StartFlyweight();
    private final ResumeFlyweight resume = new ResumeFlyweight();
    private byte[] sourceNonce;
    private byte[] sinkNonce;
    private byte[] helloReceived;
    private byte[] welcomeSent;
    private byte[] startReceived;
    private long sourceTerm;
    private TermHistory sourceHistory;
    private long sourceLastIndex = -1;
    /** The builder that creates the replica at the source's first frame, if it does not exist yet; else null. */
    private SpoolQueueBuilder creation;

    /**
     * @param maxFrameLength the largest frame the sink accepts.
     * @param secret         the shared secret, or null.
     */
    public SinkHandshake(final Path directory, final ReplicaWriter replica, final int maxFrameLength, final byte[] secret) {
        this.directory = directory;
        this.replica = replica;
        this.maxFrameLength = maxFrameLength;
        this.secret = secret;
    }

    /** @return the term of the source whose START was accepted. */
    long sourceTerm() {
        return sourceTerm;
    }

    /** @return the last index the HELLO of the source whose START was accepted announced, -1 if it had none. */
    long sourceLastIndex() {
        return sourceLastIndex;
    }

    /**
     * Checks the form of the HELLO the connection holds and queues the WELCOME; compares nothing with the replica.
     *
     * @throws FrameException if the HELLO is malformed or from another version of Spool.
     */
    void onHello(final Connection connection) throws FrameException {
        hello.wrap(connection.received(), connection.frameOffset()).check(connection.peer());
        helloReceived = Handshake.copy(connection.received(), connection.frameOffset(), HELLO_LENGTH);
        sourceNonce = hello.nonce();
        sinkNonce = Handshake.nonce();
        creation = null;
        final int offset = connection.beginFrame(TYPE_WELCOME, WELCOME_LENGTH);
        welcome.wrap(connection.send(), offset).nonce(sinkNonce);
        welcome.mac(Handshake.mac(secret, Handshake.SINK_LABEL, helloReceived,
                Handshake.copy(connection.send(), offset, WELCOME_MAC_OFFSET)));
        connection.endFrame(offset, WELCOME_LENGTH);
        welcomeSent = Handshake.copy(connection.send(), offset, WELCOME_LENGTH);
    }

    /**
     * Checks the START the connection holds; once it proved the secret, compares the HELLO's queue with the replica
     * and queues the RESUME, after which every frame both ways carries the session's MAC.
     *
     * @param busy true if another source holds the replica.
     * @return the largest frame the source will send, a DATA or a SCHEMA frame: the receive buffer must hold it.
     * @throws Refusal if the source did not prove the secret (the refusal is not authenticated: the peer may be
     *                 anyone), or, authenticated, if its queue is not the replica's, its frames are too large for
     *                 this sink or another source holds the replica.
     */
    int onStart(final Connection connection, final boolean busy) throws Refusal {
        start.wrap(connection.received(), connection.frameOffset());
        try {
            start.check(connection.peer(), connection.frameLength());
        } catch (FrameException e) {
            throw new Refusal(ERROR_PROTOCOL, e.getMessage());
        }
        final byte[] startReceived = Handshake.copy(connection.received(), connection.frameOffset(),
                connection.frameLength());
        final byte[] expected = Handshake.mac(secret, Handshake.SOURCE_LABEL, helloReceived, welcomeSent,
                Handshake.copy(connection.received(), connection.frameOffset(), start.macOffset()));
        if (!Handshake.verify(secret, expected, start.mac())) {
            throw new Refusal(ERROR_AUTHENTICATION, "the source at " + connection.peer() + " did not prove the shared"
                    + " secret: its START's MAC is wrong (its secret differs from the sink's, or it has none);"
                    + " nothing it sent is acted on");
        }
        this.startReceived = startReceived;
        hello.wrap(ByteBuffer.wrap(helloReceived).order(ByteOrder.LITTLE_ENDIAN), 0);
        sourceTerm = hello.term();
        sourceHistory = start.termHistory();
        sourceLastIndex = hello.lastIndex();
        if (sourceHistory.lastTerm() != sourceTerm) {
            throw refusal(connection, ERROR_PROTOCOL, "the source's term history " + sourceHistory + " in its START"
                    + " does not end with the term " + sourceTerm + " of its HELLO");
        }
        final RollCycle rollCycle = rollCycle(hello.rollCycleId());
        String mismatch = mismatch(hello.queueId(), rollCycle, hello.rollCycleId(), hello.epochMillis(),
                hello.maxMessageLength());
        if (mismatch == null) {
            mismatch = featureMismatch(hello.features(), hello.rollTime(), hello.rollZone());
        }
        if (mismatch != null) {
            throw refusal(connection, ERROR_QUEUE_MISMATCH, mismatch);
        }
        final boolean checksums = (hello.features() & MetadataDescriptor.FEATURE_CRC32C) != 0;
        final int tagLength = secret == null ? 0 : FrameMac.TAG_LENGTH;
        final long largestFrame = DataFlyweight.largestFrameLength(hello.frameLimit(), hello.maxMessageLength(),
                hello.features()) + tagLength;
        if (largestFrame > maxFrameLength) {
            throw refusal(connection, ERROR_PROTOCOL, "the source's frames (frame limit " + hello.frameLimit()
                    + ", messages up to " + hello.maxMessageLength() + " bytes"
                + (ExcerptDescriptor.bodyPrefixLength(hello.features()) > 0 ? " and their bodies' prefixes" : "")
                    + ", and the MAC: up to " + largestFrame + " bytes) exceed the sink's maximum frame length "
                    + maxFrameLength);
        }
        if (busy) {
            throw refusal(connection, ERROR_BUSY, "another source is streaming to this sink");
        }
        final SpoolQueue queue = replica.queue();
        if (queue == null) {
            creation = creation(rollCycle, checksums);
        }
        final long last = replica.resumeIndex(sourceLastIndex);
        final TermHistory history = replica.termHistory();
        final int length = resumeLength(history.size());
        final int offset = connection.beginFrame(TYPE_RESUME, length);
        resume.wrap(connection.send(), offset).lastIndex(last)
                .checksum(queue == null ? -1 : Handshake.checksumAt(queue, last)).term(replica.term())
                .termHistory(history);
        resume.mac(Handshake.mac(secret, Handshake.RESUME_LABEL, helloReceived, welcomeSent, startReceived,
                Handshake.copy(connection.send(), offset, resume.macOffset())));
        connection.endFrame(offset, length);
        if (secret != null) {
            connection.authenticate(Handshake.sessionKey(secret, Handshake.SINK_FRAMES_LABEL, sourceNonce, sinkNonce),
                    Handshake.sessionKey(secret, Handshake.SOURCE_FRAMES_LABEL, sourceNonce, sinkNonce));
        }
        replica.resumeAfter(last);
        // a SCHEMA frame's bound is the protocol's, whatever the DATA frames' are
        return (int) Math.max(largestFrame, FrameDescriptor.SCHEMA_MAX_FRAME_LENGTH + tagLength);
    }

    /**
     * The source's first frame after RESUME: it accepted the replica's history. Creates the replica as the HELLO
     * said, if it does not exist, takes the source's term history and term, and opens it for writing.
     *
     * @throws Refusal if the source's term is older than the replica's, or the replica cannot be opened.
     */
    void onConfirmed() throws Refusal {
        replica.open(sourceHistory, creation);
    }

    /**
     * A refusal of a source that proved the secret, whose ERROR frame carries a MAC under {@link Handshake#refusalKey}
     * when the sink has a secret: the source then knows that this sink, in this handshake, refused it, and acts on it.
     */
    private Refusal refusal(final Connection connection, final int code, final String message) {
        if (secret != null) {
            final byte[] key = Handshake.refusalKey(secret, helloReceived, welcomeSent, startReceived);
            connection.authenticate(key, key);
        }
        return new Refusal(code, message);
    }

    /** @return a fresh builder of the sink's local settings, given the HELLO's identity, roll and features. */
    private SpoolQueueBuilder creation(final RollCycle rollCycle, final boolean checksums) {
        final SpoolQueueBuilder builder = replica.newBuilder().replicaOf(hello.queueId())
                .maxMessageLength(hello.maxMessageLength()).checksums(checksums)
                .indexTimes((hello.features() & MetadataDescriptor.FEATURE_INDEX_TIMES) != 0)
                .publisherIds((hello.features() & MetadataDescriptor.FEATURE_PUBLISHER_IDS) != 0);
        final ZoneId rollZone = hello.rollZone();
        if (rollZone != null) {
            builder.rollTime(hello.rollTime(), rollZone);
        } else {
            builder.rollCycle(rollCycle).epochMillis(hello.epochMillis());
        }
        return builder;
    }

    private static RollCycle rollCycle(final int id) {
        for (final RollCycle rollCycle : RollCycle.values()) {
            if (rollCycle.id() == id) {
                return rollCycle;
            }
        }
        return null;
    }

    /** @return why the replica's features or trading-day roll differ from the source's, or null if they do not. */
    private String featureMismatch(final int features, final LocalTime rollTime, final ZoneId rollZone) {
        final SpoolQueue queue = replica.queue();
        if (queue == null) {
            return null;
        }
        final QueueInternals internals = queue.unwrap(QueueInternals.class);
        if (internals.features() != features) {
            return String.format("the sink's replica %s has features=0x%x, the source's queue 0x%x (checksums %d,"
                    + " zoned roll %d, index times %d, publisher ids %d): create the replica with the primary's"
                    + " settings", directory, internals.features(), features, MetadataDescriptor.FEATURE_CRC32C,
                    MetadataDescriptor.FEATURE_ZONED_ROLL, MetadataDescriptor.FEATURE_INDEX_TIMES,
                    MetadataDescriptor.FEATURE_PUBLISHER_IDS);
        }
        final CycleCalendar calendar = internals.calendar();
        if (!Objects.equals(calendar.rollTime(), rollTime) || !Objects.equals(calendar.zone(), rollZone)) {
            return "the sink's replica " + directory + " rolls at " + calendar.rollTime() + " " + calendar.zone()
                    + ", the source's queue at " + rollTime + " " + rollZone;
        }
        return null;
    }

    private String mismatch(final UUID queueId, final RollCycle rollCycle, final int rollCycleId, final long epochMillis,
                            final int maxMessageLength) {
        if (rollCycle == null) {
            return "unknown roll cycle id " + rollCycleId;
        }
        final SpoolQueue queue = replica.queue();
        if (queue == null) {
            return null;
        }
        if (!queue.queueId().equals(queueId)) {
            return "the sink's replica " + directory + " has queue id " + queue.queueId() + ", the source's is " + queueId;
        }
        if (queue.rollCycle() != rollCycle || queue.epochMillis() != epochMillis) {
            return "the sink's replica " + directory + " has roll cycle " + queue.rollCycle() + " and epoch "
                    + queue.epochMillis() + ", the source's are " + rollCycle + " and " + epochMillis;
        }
        if (queue.maxMessageLength() < maxMessageLength) {
            return "the sink's replica " + directory + " takes messages of up to " + queue.maxMessageLength()
                    + " bytes, the source's up to " + maxMessageLength;
        }
        return null;
    }
}
