package dev.spool.queue;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Receives one excerpt, zero-copy: the payload is {@code length} bytes of {@code bytes} from {@code offset}.
 * The bytes are the queue's mapped memory, valid only during the call; copy what must outlive it.
 * <p>
 * Byte order: the payload's bytes are as the writer gave them; the multi-byte accessors of this {@code BytesStore} ({@code readLong}, {@code writeInt}...) use the native byte order, little-endian on x86-64 and AArch64.
 */
@FunctionalInterface
public interface ExcerptHandler {
    /**
     * @param bytes  the mapped memory holding the payload; offsets are positions in the cycle file.
     * @param offset where the payload starts in {@code bytes}.
     * @param length payload length in bytes.
     * @param index  the excerpt's 64-bit index.
     */
    void onExcerpt(BytesStore<?, ?> bytes, long offset, int length, long index);
}
