package dev.spool.queue;

import net.openhft.chronicle.bytes.BytesStore;

/** A test of an excerpt's payload, zero-copy: e.g. "is this an order above 1,000,000 notional?". */
@FunctionalInterface
public interface ExcerptPredicate {
    /**
     * Tests an excerpt just written.
     *
     * Byte order: the payload's bytes are as the writer gave them; the multi-byte accessors of this {@code BytesStore} ({@code readLong}, {@code writeInt}...) use the native byte order, little-endian on x86-64 and AArch64.
     *
     * @param bytes  the mapped memory holding the payload.
     * @param offset where the payload starts in {@code bytes}.
     * @param length payload length in bytes.
     * @return true if the excerpt matches.
     */
    boolean test(BytesStore<?, ?> bytes, long offset, int length);
}
