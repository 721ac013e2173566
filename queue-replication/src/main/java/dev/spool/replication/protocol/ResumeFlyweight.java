package dev.spool.replication.protocol;

import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.TermHistory;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.MAC_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.RESUME_CHECKSUM_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.RESUME_LAST_INDEX_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.RESUME_TERMS_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.RESUME_TERM_COUNT_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.RESUME_TERM_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.resumeLength;
import static dev.spool.replication.protocol.FrameDescriptor.resumeMacOffset;

/**
 * Flyweight over a RESUME frame, the sink's answer to a START that proved the secret: its last index and that
 * excerpt's checksum, its term and term history, and its MAC over the whole handshake. Wraps a little-endian buffer at
 * the frame's offset; the header is {@link FrameHeader}'s. Once per connection, so the history and the MAC are
 * returned as new objects.
 */
public final class ResumeFlyweight {
    /** The largest CRC-32C. */
    private static final long MAX_CHECKSUM = 0xFFFF_FFFFL;
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public ResumeFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the sink's last index, -1 if its replica is empty or not created yet. */
    public long lastIndex() {
        return buffer.getLong(offset + RESUME_LAST_INDEX_OFFSET);
    }

    /**
     * @param lastIndex the sink's last index, -1 if none.
     * @return this flyweight.
     */
    public ResumeFlyweight lastIndex(final long lastIndex) {
        buffer.putLong(offset + RESUME_LAST_INDEX_OFFSET, lastIndex);
        return this;
    }

    /** @return the CRC-32C of the body at the sink's last index, -1 if it has none. */
    public long checksum() {
        return buffer.getLong(offset + RESUME_CHECKSUM_OFFSET);
    }

    /**
     * @param checksum the CRC-32C of the body at the sink's last index, -1 if it has none.
     * @return this flyweight.
     */
    public ResumeFlyweight checksum(final long checksum) {
        buffer.putLong(offset + RESUME_CHECKSUM_OFFSET, checksum);
        return this;
    }

    /** @return the sink replica's term. */
    public long term() {
        return buffer.getLong(offset + RESUME_TERM_OFFSET);
    }

    /**
     * @param term the sink replica's term.
     * @return this flyweight.
     */
    public ResumeFlyweight term(final long term) {
        buffer.putLong(offset + RESUME_TERM_OFFSET, term);
        return this;
    }

    /** @return the number of term entries, which places the MAC. */
    public int termCount() {
        return buffer.getInt(offset + RESUME_TERM_COUNT_OFFSET);
    }

    /** @return the sink replica's term history; once {@link #check} passed. */
    public TermHistory termHistory() {
        return TermEntries.read(buffer, offset + RESUME_TERMS_OFFSET, termCount());
    }

    /**
     * @param history the sink replica's term history; write it before the MAC, which it places.
     * @return this flyweight.
     */
    public ResumeFlyweight termHistory(final TermHistory history) {
        buffer.putInt(offset + RESUME_TERM_COUNT_OFFSET, history.size());
        TermEntries.write(buffer, offset + RESUME_TERMS_OFFSET, history);
        return this;
    }

    /** @return the offset of the MAC from the frame's start: the length of what it proves. */
    public int macOffset() {
        return resumeMacOffset(termCount());
    }

    /** @return the frame's length, for its term entries. */
    public int frameLength() {
        return resumeLength(termCount());
    }

    /** @return a copy of the sink's HMAC over the handshake. */
    public byte[] mac() {
        final byte[] mac = new byte[MAC_LENGTH];
        buffer.get(offset + macOffset(), mac);
        return mac;
    }

    /**
     * @param mac the sink's HMAC over the handshake, {@link FrameDescriptor#MAC_LENGTH} bytes.
     * @return this flyweight.
     */
    public ResumeFlyweight mac(final byte[] mac) {
        buffer.put(offset + macOffset(), mac, 0, MAC_LENGTH);
        return this;
    }

    /**
     * Decoder: checks that the frame is as long as its term entries say and that they make a history, and that the
     * last index, its checksum and the term are values a sink can send; before its MAC is checked.
     *
     * @param peer        names the sender in the error.
     * @param frameLength the frame's length, before any session MAC.
     * @throws FrameException naming the peer, the field and its value.
     */
    public void check(final String peer, final int frameLength) throws FrameException {
        final int count = termCount();
        TermEntries.check("RESUME frame from " + peer, buffer, offset + RESUME_TERMS_OFFSET, count, frameLength,
                count < 1 || count > FrameDescriptor.MAX_TERM_ENTRIES ? -1 : resumeLength(count));
        if (lastIndex() < -1) {
            throw new FrameException("RESUME frame from " + peer + ": lastIndex=" + lastIndex() + " is below -1");
        }
        if (checksum() < -1 || checksum() > MAX_CHECKSUM) {
            throw new FrameException("RESUME frame from " + peer + ": checksum=" + checksum()
                    + " is neither -1 nor a CRC-32C");
        }
        if (term() < 0 || term() > MetadataDescriptor.MAX_TERM) {
            throw new FrameException("RESUME frame from " + peer + ": term=" + term() + " outside [0, "
                    + MetadataDescriptor.MAX_TERM + "]");
        }
    }
}
