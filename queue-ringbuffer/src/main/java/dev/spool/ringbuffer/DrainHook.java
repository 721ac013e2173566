package dev.spool.ringbuffer;

/**
 * Points in the drainer's batch where a test may act: stall the drainer as a disk stall would, to show what the
 * appenders and ring readers do meanwhile. Not for production use: the drainer holds {@link #NONE}, whose empty
 * methods the JIT inlines away, unless a test builds the queue with another through
 * {@code AsyncQueueBuilder.drainHook}.
 */
interface DrainHook {
    /** Does nothing at every point. */
    DrainHook NONE = new DrainHook() {
    };

    /**
     * After a record's append into the queue and its journal entry: the batch's intent is written, the batch is
     * part-way, the drained snapshot and the head have not moved.
     *
     * @param position the record's ring position.
     * @param index    the queue index it was appended at.
     */
    default void afterAppend(final long position, final long index) {
    }

    /** After the whole batch {@code [from, to)} is in the queue, before the drained snapshot moves past it. */
    default void beforeSnapshot(final long from, final long to) {
    }

    /** After the drained snapshot and the head moved to {@code to}, before the drainer frees ring space. */
    default void beforeRelease(final long from, final long to) {
    }
}
