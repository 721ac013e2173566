package dev.spool.replication.protocol;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.READY_FLAGS_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.READY_FLAG_DEDUPLICATES;
import static dev.spool.replication.protocol.FrameDescriptor.READY_RESERVED_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.READY_TERM_OFFSET;

/**
 * Flyweight over a READY frame, the first a publish gateway sends on an open connection: its flags and its queue's
 * term. Wraps a little-endian buffer at the frame's offset; the header is {@link FrameHeader}'s. Allocates nothing
 * but on the throw path.
 */
public final class ReadyFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * @param buffer a little-endian buffer holding, or to hold, the frame.
     * @param offset where the frame starts.
     * @return this flyweight, over that frame.
     */
    public ReadyFlyweight wrap(final ByteBuffer buffer, final int offset) {
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the flags: {@link FrameDescriptor#READY_FLAG_DEDUPLICATES} or none. */
    public int flags() {
        return buffer.getInt(offset + READY_FLAGS_OFFSET);
    }

    /**
     * @param flags the flags: {@link FrameDescriptor#READY_FLAG_DEDUPLICATES} or none.
     * @return this flyweight.
     */
    public ReadyFlyweight flags(final int flags) {
        buffer.putInt(offset + READY_FLAGS_OFFSET, flags);
        buffer.putInt(offset + READY_RESERVED_OFFSET, 0);
        return this;
    }

    /** @return the term of the gateway's queue. */
    public long term() {
        return buffer.getLong(offset + READY_TERM_OFFSET);
    }

    /**
     * @param term the term of the gateway's queue.
     * @return this flyweight.
     */
    public ReadyFlyweight term(final long term) {
        buffer.putLong(offset + READY_TERM_OFFSET, term);
        return this;
    }

    /**
     * Decoder: checks that no flag this build does not know is set.
     *
     * @param peer names the sender in the error.
     * @throws FrameException naming the peer and the flags.
     */
    public void check(final String peer) throws FrameException {
        if ((flags() & ~READY_FLAG_DEDUPLICATES) != 0) {
            throw new FrameException(String.format("READY frame from %s: flags=0x%x, of which this build knows 0x%x",
                    peer, flags(), READY_FLAG_DEDUPLICATES));
        }
    }
}
