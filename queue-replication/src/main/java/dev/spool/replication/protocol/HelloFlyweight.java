package dev.spool.replication.protocol;

import dev.spool.queue.format.MetadataDescriptor;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.DateTimeException;
import java.time.LocalTime;
import java.time.ZoneId;
import java.util.UUID;

import static dev.spool.replication.protocol.FrameDescriptor.HELLO_EPOCH_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_FEATURES_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_FRAME_LIMIT_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_LAST_INDEX_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_MAGIC_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_MAX_MESSAGE_LENGTH_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_NONCE_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_QUEUE_ID_LEAST_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_QUEUE_ID_MOST_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_ROLL_CYCLE_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_ROLL_MINUTE_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_ROLL_ZONE_LENGTH_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_ROLL_ZONE_MAX_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_ROLL_ZONE_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.HELLO_TERM_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.MAGIC;
import static dev.spool.replication.protocol.FrameDescriptor.NONCE_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.VERSION;
import static dev.spool.replication.protocol.FrameDescriptor.VERSION_1_MAGIC;

/**
 * Flyweight over a HELLO frame, the source's opening of the handshake: magic, the queue's identity and limits, the
 * source's term and last index, its frame limit, the queue's features and trading-day roll, and the nonce. Wraps a little-endian buffer at the frame's offset; the
 * header is {@link FrameHeader}'s. Once per connection, so the nonce and queue id are returned as new objects.
 */
public final class HelloFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public HelloFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the magic, {@link FrameDescriptor#MAGIC} from a peer of this protocol. */
    public int magic() {
        return buffer.getInt(offset + HELLO_MAGIC_OFFSET);
    }

    /**
     * @param magic {@link FrameDescriptor#MAGIC}, or another for tests that play an older or broken peer.
     * @return this flyweight.
     */
    public HelloFlyweight magic(final int magic) {
        buffer.putInt(offset + HELLO_MAGIC_OFFSET, magic);
        return this;
    }

    /** @return the id of the source's roll cycle. */
    public int rollCycleId() {
        return buffer.getInt(offset + HELLO_ROLL_CYCLE_OFFSET);
    }

    /**
     * @param rollCycleId the id of the source's roll cycle.
     * @return this flyweight.
     */
    public HelloFlyweight rollCycleId(final int rollCycleId) {
        buffer.putInt(offset + HELLO_ROLL_CYCLE_OFFSET, rollCycleId);
        return this;
    }

    /** @return the source queue's identity. */
    public UUID queueId() {
        return new UUID(buffer.getLong(offset + HELLO_QUEUE_ID_MOST_OFFSET),
                buffer.getLong(offset + HELLO_QUEUE_ID_LEAST_OFFSET));
    }

    /**
     * @param queueId the source queue's identity.
     * @return this flyweight.
     */
    public HelloFlyweight queueId(final UUID queueId) {
        buffer.putLong(offset + HELLO_QUEUE_ID_MOST_OFFSET, queueId.getMostSignificantBits());
        buffer.putLong(offset + HELLO_QUEUE_ID_LEAST_OFFSET, queueId.getLeastSignificantBits());
        return this;
    }

    /** @return the source queue's epoch, ms since 1970. */
    public long epochMillis() {
        return buffer.getLong(offset + HELLO_EPOCH_OFFSET);
    }

    /**
     * @param epochMillis the source queue's epoch, ms since 1970.
     * @return this flyweight.
     */
    public HelloFlyweight epochMillis(final long epochMillis) {
        buffer.putLong(offset + HELLO_EPOCH_OFFSET, epochMillis);
        return this;
    }

    /** @return the source queue's term. */
    public long term() {
        return buffer.getLong(offset + HELLO_TERM_OFFSET);
    }

    /**
     * @param term the source queue's term.
     * @return this flyweight.
     */
    public HelloFlyweight term(final long term) {
        buffer.putLong(offset + HELLO_TERM_OFFSET, term);
        return this;
    }

    /** @return the source's last index, -1 if it is empty. */
    public long lastIndex() {
        return buffer.getLong(offset + HELLO_LAST_INDEX_OFFSET);
    }

    /**
     * @param lastIndex the source's last index, -1 if it is empty.
     * @return this flyweight.
     */
    public HelloFlyweight lastIndex(final long lastIndex) {
        buffer.putLong(offset + HELLO_LAST_INDEX_OFFSET, lastIndex);
        return this;
    }

    /** @return the longest message the source queue takes. */
    public int maxMessageLength() {
        return buffer.getInt(offset + HELLO_MAX_MESSAGE_LENGTH_OFFSET);
    }

    /**
     * @param maxMessageLength the longest message the source queue takes.
     * @return this flyweight.
     */
    public HelloFlyweight maxMessageLength(final int maxMessageLength) {
        buffer.putInt(offset + HELLO_MAX_MESSAGE_LENGTH_OFFSET, maxMessageLength);
        return this;
    }

    /** @return the source's frame limit: its DATA frames are at most this long unless one excerpt alone is longer. */
    public int frameLimit() {
        return buffer.getInt(offset + HELLO_FRAME_LIMIT_OFFSET);
    }

    /**
     * @param frameLimit the source's frame limit.
     * @return this flyweight.
     */
    public HelloFlyweight frameLimit(final int frameLimit) {
        buffer.putInt(offset + HELLO_FRAME_LIMIT_OFFSET, frameLimit);
        return this;
    }

    /** @return the source queue's features, the metadata's bit set ({@code MetadataDescriptor.FEATURE_*}). */
    public int features() {
        return buffer.getInt(offset + HELLO_FEATURES_OFFSET);
    }

    /**
     * @param features the source queue's features.
     * @return this flyweight.
     */
    public HelloFlyweight features(final int features) {
        buffer.putInt(offset + HELLO_FEATURES_OFFSET, features);
        return this;
    }

    /** @return the local time of day the source's cycles start, or null unless it rolls at a time in a zone. */
    public LocalTime rollTime() {
        return (features() & MetadataDescriptor.FEATURE_ZONED_ROLL) == 0 ? null
                : LocalTime.ofSecondOfDay(buffer.getInt(offset + HELLO_ROLL_MINUTE_OFFSET) * 60L);
    }

    /** @return the zone of {@link #rollTime()}, or null; once per connection, so a new object. */
    public ZoneId rollZone() {
        if ((features() & MetadataDescriptor.FEATURE_ZONED_ROLL) == 0) {
            return null;
        }
        final byte[] zone = new byte[buffer.getInt(offset + HELLO_ROLL_ZONE_LENGTH_OFFSET)];
        buffer.get(offset + HELLO_ROLL_ZONE_OFFSET, zone);
        return ZoneId.of(new String(zone, StandardCharsets.UTF_8));
    }

    /**
     * @param rollTime the local time of day the source's cycles start, or null.
     * @param zone     its zone, or null.
     * @return this flyweight.
     */
    public HelloFlyweight roll(final LocalTime rollTime, final ZoneId zone) {
        final byte[] id = zone == null ? new byte[0] : zone.getId().getBytes(StandardCharsets.UTF_8);
        buffer.putInt(offset + HELLO_ROLL_MINUTE_OFFSET, rollTime == null ? 0 : rollTime.toSecondOfDay() / 60);
        buffer.putInt(offset + HELLO_ROLL_ZONE_LENGTH_OFFSET, id.length);
        buffer.put(offset + HELLO_ROLL_ZONE_OFFSET, id, 0, id.length);
        return this;
    }

    /** @return a copy of the source's nonce. */
    public byte[] nonce() {
        final byte[] nonce = new byte[NONCE_LENGTH];
        buffer.get(offset + HELLO_NONCE_OFFSET, nonce);
        return nonce;
    }

    /**
     * @param nonce the source's nonce, {@link FrameDescriptor#NONCE_LENGTH} bytes.
     * @return this flyweight.
     */
    public HelloFlyweight nonce(final byte[] nonce) {
        buffer.put(offset + HELLO_NONCE_OFFSET, nonce, 0, NONCE_LENGTH);
        return this;
    }

    /**
     * Decoder: checks the fields a HELLO from a peer must have whatever the sink's queue: the magic, a term, a last
     * index, a message length and a frame limit that can be. Whether the queue matches the sink's is the sink's
     * question.
     *
     * @param peer names the sender in the error.
     * @throws FrameException naming the peer, the field and its value.
     */
    public void check(final String peer) throws FrameException {
        final int magic = magic();
        if (magic == VERSION_1_MAGIC) {
            throw new FrameException(String.format("HELLO frame from %s: magic=0x%08x, protocol version 1's (the peer"
                    + " runs an older Spool), expected 0x%08x of version %d", peer, magic, MAGIC, VERSION));
        }
        if (magic != MAGIC) {
            throw new FrameException(String.format("HELLO frame from %s: magic=0x%08x, expected 0x%08x", peer, magic,
                    MAGIC));
        }
        if (term() < 0 || term() > MetadataDescriptor.MAX_TERM) {
            throw new FrameException("HELLO frame from " + peer + ": term=" + term() + " outside [0, "
                    + MetadataDescriptor.MAX_TERM + "]");
        }
        if (lastIndex() < -1) {
            throw new FrameException("HELLO frame from " + peer + ": lastIndex=" + lastIndex() + " is below -1");
        }
        if (maxMessageLength() < 1) {
            throw new FrameException("HELLO frame from " + peer + ": maxMessageLength=" + maxMessageLength()
                    + " is not positive");
        }
        if (frameLimit() < DataFlyweight.frameLength(1)) {
            throw new FrameException("HELLO frame from " + peer + ": frameLimit=" + frameLimit()
                    + " cannot hold one excerpt, which takes at least " + DataFlyweight.frameLength(1));
        }
        final int features = features();
        if ((features & ~MetadataDescriptor.KNOWN_FEATURES) != 0) {
            throw new FrameException(String.format("HELLO frame from %s: features=0x%x include 0x%x, which this build"
                    + " does not know: the source runs a newer Spool", peer, features, features & ~MetadataDescriptor.KNOWN_FEATURES));
        }
        checkRoll(peer, (features & MetadataDescriptor.FEATURE_ZONED_ROLL) != 0);
    }

    private void checkRoll(final String peer, final boolean zoned) throws FrameException {
        final int minute = buffer.getInt(offset + HELLO_ROLL_MINUTE_OFFSET);
        final int zoneLength = buffer.getInt(offset + HELLO_ROLL_ZONE_LENGTH_OFFSET);
        if (!zoned) {
            if (minute != 0 || zoneLength != 0) {
                throw new FrameException("HELLO frame from " + peer + ": rollMinute=" + minute + " and zone length="
                        + zoneLength + " without the zoned-roll feature");
            }
            return;
        }
        if (minute < 0 || minute >= 24 * 60) {
            throw new FrameException("HELLO frame from " + peer + ": rollMinute=" + minute + " is not a minute of a day");
        }
        if (zoneLength < 1 || zoneLength > HELLO_ROLL_ZONE_MAX_LENGTH) {
            throw new FrameException("HELLO frame from " + peer + ": zone length=" + zoneLength + " outside [1, "
                    + HELLO_ROLL_ZONE_MAX_LENGTH + "]");
        }
        // the zone's bytes are the peer's: named only quoted and escaped, never decoded loosely or echoed
        final byte[] zone = new byte[zoneLength];
        buffer.get(offset + HELLO_ROLL_ZONE_OFFSET, zone);
        try {
            StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(zone));
        } catch (CharacterCodingException e) {
            throw new FrameException("HELLO frame from " + peer + ": zone " + PeerText.quote(zone) + " is not UTF-8");
        }
        try {
            rollZone();
        } catch (DateTimeException e) {
            throw new FrameException("HELLO frame from " + peer + ": zone " + PeerText.quote(zone)
                    + " is not a time zone");
        }
    }
}
