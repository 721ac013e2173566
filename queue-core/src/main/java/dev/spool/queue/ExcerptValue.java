package dev.spool.queue;

import net.openhft.chronicle.bytes.BytesStore;

/** A number read from an excerpt's payload, zero-copy: e.g. an order's notional. */
@FunctionalInterface
public interface ExcerptValue {
    /**
     * Reads the value of an excerpt just written.
     *
     * Byte order: the payload's bytes are as the writer gave them; the multi-byte accessors of this {@code BytesStore} ({@code readLong}, {@code writeInt}...) use the native byte order, little-endian on x86-64 and AArch64.
     *
     * @param bytes  the mapped memory holding the payload.
     * @param offset where the payload starts in {@code bytes}.
     * @param length payload length in bytes.
     * @return the excerpt's value.
     */
    long valueOf(BytesStore<?, ?> bytes, long offset, int length);
}
