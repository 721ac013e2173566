package dev.spool.ringbuffer;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Receives one committed record of a ring, zero-copy: the payload is {@code length} bytes of {@code buffer} from
 * {@code offset}. The bytes are the ring's mapped memory, valid only during the call; copy what must outlive it.
 * <p>
 * Byte order: the payload's bytes are as the writer gave them; the multi-byte accessors of this {@code BytesStore} ({@code readLong}, {@code writeInt}...) use the native byte order, little-endian on x86-64 and AArch64.
 */
@FunctionalInterface
public interface RingHandler {
    /**
     * @param buffer   the ring's mapped memory.
     * @param offset   where the payload starts in {@code buffer}.
     * @param length   payload length in bytes.
     * @param position the record's ring position.
     */
    void onRecord(BytesStore<?, ?> buffer, long offset, int length, long position);
}
