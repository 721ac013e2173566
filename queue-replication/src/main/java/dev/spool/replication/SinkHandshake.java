package dev.spool.replication;

import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.CycleCalendar;
import dev.spool.queue.internal.QueueInternals;

import java.nio.file.Path;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.Objects;
import java.util.UUID;

import static dev.spool.replication.FrameDescriptor.ERROR_AUTHENTICATION;
import static dev.spool.replication.FrameDescriptor.ERROR_PROTOCOL;
import static dev.spool.replication.FrameDescriptor.ERROR_QUEUE_MISMATCH;
import static dev.spool.replication.FrameDescriptor.HELLO_LENGTH;
import static dev.spool.replication.FrameDescriptor.START_MAC_OFFSET;
import static dev.spool.replication.FrameDescriptor.TYPE_WELCOME;
import static dev.spool.replication.FrameDescriptor.WELCOME_MAC_OFFSET;
import static dev.spool.replication.FrameDescriptor.WELCOME_LENGTH;

/**
 * The sink's side of the handshake, once per connection: checks the source's HELLO against the replica (identity,
 * roll cycle, epoch, message length, frame sizes) and answers WELCOME with the replica's last index, that excerpt's
 * checksum, its term and the sink's proof of the shared secret; then checks the source's START and opens the
 * replica for writing. Nothing a source sends changes the replica (creates it, records a term) before its START
 * proved the shared secret. Runs on the sink's thread; allocation is fine here.
 */
final class SinkHandshake {
    private final Path directory;
    private final ReplicaWriter replica;
    private final int maxFrameLength;
    private final byte[] secret;
    private final HelloFlyweight hello = new HelloFlyweight();
    private final WelcomeFlyweight welcome = new WelcomeFlyweight();
    private final StartFlyweight start = new StartFlyweight();
    private byte[] sourceNonce;
    private byte[] sinkNonce;
    private byte[] helloReceived;
    private byte[] welcomeSent;
    private long sourceTerm;

    /**
     * @param maxFrameLength the largest frame the sink accepts.
     * @param secret         the shared secret, or null.
     */
    SinkHandshake(final Path directory, final ReplicaWriter replica, final int maxFrameLength, final byte[] secret) {
        this.directory = directory;
        this.replica = replica;
        this.maxFrameLength = maxFrameLength;
        this.secret = secret;
    }

    /** @return the key of the MAC on the sink's busy refusals ({@link Handshake#termKey}), or null if insecure. */
    byte[] termKey() {
        return secret == null ? null : Handshake.termKey(secret);
    }

    /** @return the term of the source whose HELLO was accepted last. */
    long sourceTerm() {
        return sourceTerm;
    }

    /**
     * Checks the HELLO the connection holds and queues the WELCOME.
     *
     * @return the largest frame the source will send, a DATA or a SCHEMA frame: the receive buffer must hold it.
     * @throws FrameException if the HELLO is malformed or from an older Spool.
     * @throws Refusal        if the source's queue is not the replica's, or its frames are too large for this sink.
     */
    int onHello(final Connection connection) throws FrameException, Refusal {
        hello.wrap(connection.received(), connection.frameOffset()).check(connection.peer());
        final int rollCycleId = hello.rollCycleId();
        final UUID queueId = hello.queueId();
        final long epochMillis = hello.epochMillis();
        sourceTerm = hello.term();
        final int maxMessageLength = hello.maxMessageLength();
        final int frameLimit = hello.frameLimit();
        sourceNonce = hello.nonce();
        helloReceived = Handshake.copy(connection.received(), connection.frameOffset(), HELLO_LENGTH);
        final int features = hello.features();
        final LocalTime rollTime = hello.rollTime();
        final ZoneId rollZone = hello.rollZone();
        final RollCycle rollCycle = rollCycle(rollCycleId);
        String mismatch = mismatch(queueId, rollCycle, rollCycleId, epochMillis, maxMessageLength);
        if (mismatch == null) {
            mismatch = featureMismatch(features, rollTime, rollZone);
        }
        if (mismatch != null) {
            throw refusal(connection, ERROR_QUEUE_MISMATCH, mismatch);
        }
        final int tagLength = secret == null ? 0 : FrameMac.TAG_LENGTH;
        final long largestFrame = Math.max(frameLimit, DataFlyweight.frameLength(maxMessageLength)) + tagLength;
        if (largestFrame > maxFrameLength) {
            throw refusal(connection, ERROR_PROTOCOL, "the source's frames (frame limit " + frameLimit + ", messages up to "
                    + maxMessageLength + " bytes, and the MAC: up to " + largestFrame + " bytes) exceed the sink's maximum frame"
                    + " length " + maxFrameLength);
        }
        final SpoolQueue queue = replica.queue();
        if (queue == null) {
            // created as the primary was: the same roll, checksums and index times
            final SpoolQueueBuilder builder = replica.queueBuilder().replicaOf(queueId).maxMessageLength(maxMessageLength)
                    .checksums((features & MetadataDescriptor.FEATURE_CRC32C) != 0)
                    .indexTimes((features & MetadataDescriptor.FEATURE_INDEX_TIMES) != 0);
            if (rollZone != null) {
                builder.rollTime(rollTime, rollZone);
            } else {
                builder.rollCycle(rollCycle).epochMillis(epochMillis);
            }
        }
        final long last = queue == null ? -1 : queue.lastIndex();
        sinkNonce = Handshake.nonce();
        final int offset = connection.beginFrame(TYPE_WELCOME, WELCOME_LENGTH);
        welcome.wrap(connection.send(), offset).lastIndex(last)
                .checksum(queue == null ? -1 : Handshake.checksumAt(queue, last)).term(replica.term())
                .nonce(sinkNonce);
        welcome.mac(Handshake.mac(secret, Handshake.SINK_LABEL, helloReceived,
                Handshake.copy(connection.send(), offset, WELCOME_MAC_OFFSET)));
        connection.endFrame(offset, WELCOME_LENGTH);
        welcomeSent = Handshake.copy(connection.send(), offset, WELCOME_LENGTH);
        replica.resumeAfter(last);
        // a SCHEMA frame's bound is the protocol's, whatever the DATA frames' are
        return (int) Math.max(largestFrame, FrameDescriptor.SCHEMA_MAX_FRAME_LENGTH + tagLength);
    }

    /**
     * Checks the START the connection holds and opens the replica for writing.
     *
     * @throws FrameException if the START does not resume after the sink's last index.
     * @throws Refusal        if the source fails the shared-secret check, is fenced, or the replica cannot be opened.
     */
    void onStart(final Connection connection) throws FrameException, Refusal {
        start.wrap(connection.received(), connection.frameOffset());
        final byte[] expected = Handshake.mac(secret, Handshake.SOURCE_LABEL, helloReceived, welcomeSent,
                Handshake.copy(connection.received(), connection.frameOffset(), START_MAC_OFFSET));
        if (!Handshake.verify(secret, expected, start.mac())) {
            throw new Refusal(ERROR_AUTHENTICATION, "the source at " + connection.peer() + " did not prove the shared"
                    + " secret: its START's MAC is wrong (its secret differs from the sink's, or it has none);"
                    + " nothing it sent is acted on");
        }
        start.check(connection.peer(), replica.written());
        if (secret != null) {
            // the ERROR a refused START gets below is authenticated too: the source checks it
            connection.authenticate(Handshake.sessionKey(secret, Handshake.SINK_FRAMES_LABEL, sourceNonce, sinkNonce),
                    Handshake.sessionKey(secret, Handshake.SOURCE_FRAMES_LABEL, sourceNonce, sinkNonce));
        }
        replica.open(sourceTerm);
    }

    /**
     * A refusal of a HELLO, whose ERROR frame carries a MAC under {@link Handshake#refusalKey} when the sink has a
     * secret: the source then knows the sink that says the queues differ is genuine, and stops instead of retrying.
     */
    private Refusal refusal(final Connection connection, final int code, final String message) {
        if (secret != null) {
            final byte[] key = Handshake.refusalKey(secret, sourceNonce);
            connection.authenticate(key, key);
        }
        return new Refusal(code, message);
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
        final QueueInternals internals = QueueInternals.of(queue);
        if (internals.features() != features) {
            return String.format("the sink's replica %s has features=0x%x, the source's queue 0x%x (checksums %d,"
                    + " zoned roll %d, index times %d): create the replica with the primary's settings", directory,
                    internals.features(), features, MetadataDescriptor.FEATURE_CRC32C,
                    MetadataDescriptor.FEATURE_ZONED_ROLL, MetadataDescriptor.FEATURE_INDEX_TIMES);
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
