package dev.spool.replication.protocol;

import dev.spool.queue.IndexFormat;
import java.nio.ByteBuffer;

import dev.spool.queue.format.ExcerptDescriptor;
import static dev.spool.replication.protocol.FrameDescriptor.DATA_COUNT_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.DATA_ENTRIES_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.DATA_FLAGS_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.DATA_FLAG_CRC32C;
import static dev.spool.replication.protocol.FrameDescriptor.ENTRY_HEADER_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.ENTRY_INDEX_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.ENTRY_LENGTH_OFFSET;

/**
 * Flyweight over a DATA frame: an entry count, then entries of index, payload length and payload, unpadded, in
 * index order. Wraps a little-endian buffer at the frame's offset; the header is {@link FrameHeader}'s. Entries are
 * addressed by their absolute offset in the buffer: {@link #firstEntry()}, then {@link #nextEntry(int)}. The encoder
 * writes each entry's header and leaves the payload's copy to the caller, which copies straight from the queue.
 * Allocates nothing but on the throw path.
 */
public final class DataFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param payloadLength the length of one excerpt.
     * @return the length of a DATA frame holding that excerpt alone.
     */
    public static long frameLength(final long payloadLength) {
        return DATA_ENTRIES_OFFSET + ENTRY_HEADER_LENGTH + payloadLength;
    }

    /**
     * The one place both sides size the largest DATA frame: the source its send buffer, the sink its limit and
     * receive buffer.
     *
     * @param frameLimit       the source's frame limit: a frame of several excerpts is at most this long.
     * @param maxMessageLength the longest message of the source's queue.
     * @param features         the features of the source's queue: each entry carries the body's prefix they give
     *                         (the excerpt's CRC32C, its publisher id and sequence) with the payload.
     * @return the longest DATA frame the source may send, before its MAC: one of several excerpts, or the longest
     * excerpt alone with its body's prefix, whichever is longer.
     */
    public static long largestFrameLength(final int frameLimit, final int maxMessageLength, final int features) {
        return Math.max(frameLimit, frameLength(maxMessageLength + (long) ExcerptDescriptor.bodyPrefixLength(features)));
    }

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public DataFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return how many entries the frame holds. */
    public int count() {
        return buffer.getInt(offset + DATA_COUNT_OFFSET);
    }

    /**
     * @param count how many entries the frame holds.
     * @return this flyweight.
     */
    public DataFlyweight count(final int count) {
        buffer.putInt(offset + DATA_COUNT_OFFSET, count);
        buffer.putInt(offset + DATA_FLAGS_OFFSET, 0);
        return this;
    }

    /** @return the frame's flags: {@link FrameDescriptor#DATA_FLAG_CRC32C} or 0. */
    public int flags() {
        return buffer.getInt(offset + DATA_FLAGS_OFFSET);
    }

    /**
     * @param flags the frame's flags: {@link FrameDescriptor#DATA_FLAG_CRC32C} if entries hold stored bodies.
     * @return this flyweight.
     */
    public DataFlyweight flags(final int flags) {
        buffer.putInt(offset + DATA_FLAGS_OFFSET, flags);
        return this;
    }

    /** @return where the first entry starts in the buffer (absolute). */
    public int firstEntry() {
        return offset + DATA_ENTRIES_OFFSET;
    }

    /**
     * @param entry where an entry starts (absolute).
     * @return its index.
     */
    public long entryIndex(final int entry) {
        return buffer.getLong(entry + ENTRY_INDEX_OFFSET);
    }

    /**
     * @param entry where an entry starts (absolute).
     * @return its payload's length.
     */
    public int entryLength(final int entry) {
        return buffer.getInt(entry + ENTRY_LENGTH_OFFSET);
    }

    /**
     * @param entry where an entry starts (absolute).
     * @return where its payload starts (absolute).
     */
    public int entryPayload(final int entry) {
        return entry + ENTRY_HEADER_LENGTH;
    }

    /**
     * @param entry where an entry starts (absolute).
     * @return where the entry after it starts (absolute).
     */
    public int nextEntry(final int entry) {
        return entry + ENTRY_HEADER_LENGTH + entryLength(entry);
    }

    /**
     * Encoder: writes an entry's header; the caller copies the payload to {@link #entryPayload(int)}.
     *
     * @param entry  where the entry starts (absolute).
     * @param index  the excerpt's index.
     * @param length the payload's length.
     * @return where the entry after it starts (absolute).
     */
    public int putEntry(final int entry, final long index, final int length) {
        buffer.putLong(entry + ENTRY_INDEX_OFFSET, index);
        buffer.putInt(entry + ENTRY_LENGTH_OFFSET, length);
        return entry + ENTRY_HEADER_LENGTH + length;
    }

    /**
     * Decoder: checks the whole frame before anything in it is applied: at least one entry, each inside the frame
     * with a payload of at least one byte, indices rising after the receiver's last, the entries filling the frame.
     *
     * @param peer          names the sender in the error.
     * @param frameLength   the frame's length, from its header.
     * @param previousIndex the receiver's last index: the first entry's must be above it.
     * @throws FrameException naming the peer, the entry, and its index or length.
     */
    public void check(final String peer, final int frameLength, final long previousIndex) throws FrameException {
        final int end = offset + frameLength;
        final int count = count();
        if ((flags() & ~DATA_FLAG_CRC32C) != 0) {
            throw new FrameException("DATA frame from " + peer + " has flags=0x" + Integer.toHexString(flags())
                    + ", of which only 0x" + Integer.toHexString(DATA_FLAG_CRC32C) + " (crc32c) is known");
        }
        int entry = firstEntry();
        long previous = previousIndex;
        for (int i = 0; i < count; i++) {
            if (entry + ENTRY_HEADER_LENGTH > end) {
                throw new FrameException("DATA frame from " + peer + " ends inside entry " + i + " of " + count);
            }
            final long index = entryIndex(entry);
            final int length = entryLength(entry);
            if (length < 1 || length > end - entry - ENTRY_HEADER_LENGTH) {
                throw new FrameException("DATA frame from " + peer + ": entry " + i + " at index " + IndexFormat.format(index, null)
                        + " has length " + length + ", " + (end - entry - ENTRY_HEADER_LENGTH) + " bytes are left");
            }
            if (index <= previous) {
                throw new FrameException("DATA frame from " + peer + ": entry " + i + " has index "
                        + IndexFormat.format(index, null) + ", not after " + IndexFormat.format(previous, null));
            }
            previous = index;
            entry += ENTRY_HEADER_LENGTH + length;
        }
        if (count < 1 || entry != end) {
            throw new FrameException("DATA frame from " + peer + " of length " + frameLength + " holds " + count
                    + " entries ending at offset " + (entry - offset));
        }
    }
}
