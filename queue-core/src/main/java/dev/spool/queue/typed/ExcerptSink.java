package dev.spool.queue.typed;

import dev.spool.queue.SpoolException;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Where a generated method writer puts its excerpts: the claim/commit of a queue appender or of the ring's async
 * appender. Public for the generated code only.
 */
public interface ExcerptSink {
    /**
     * Claims room for one payload.
     *
     * @param length the payload's exact length.
     * @param method the interface and method being written, for the message of an error.
     * @return where the payload starts in {@link #bytes()}.
     * @throws SpoolException if {@code length} exceeds the most the queue (or ring) accepts.
     */
    long claim(int length, String method);

    /** @return the memory of the open claim. */
    BytesStore<?, ?> bytes();

    /**
     * Publishes the open claim.
     *
     * @param length the payload length written.
     * @return false if the claim had been revoked (the ring's claim timeout): claim and write again.
     */
    boolean commit(int length);

    /** Abandons the open claim. */
    void rollback();
}
