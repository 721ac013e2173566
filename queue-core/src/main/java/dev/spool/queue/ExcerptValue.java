package dev.spool.queue;

import net.openhft.chronicle.bytes.BytesStore;

/** A number read from an excerpt's payload, zero-copy: e.g. an order's notional. */
@FunctionalInterface
public interface ExcerptValue {
    /**
     * Reads the value of an excerpt just written.
     *
     * @param bytes  the mapped memory holding the payload.
     * @param offset where the payload starts in {@code bytes}.
     * @param length payload length in bytes.
     * @return the excerpt's value.
     */
    long valueOf(BytesStore<?, ?> bytes, long offset, int length);
}
