package dev.spool.queue.typed;

import dev.spool.queue.ExcerptHandler;

/** What a {@link MethodReader} reads from: a queue tailer or the ring's async tailer. */
@FunctionalInterface
public interface ExcerptSource {
    /**
     * @param handler receives the next excerpt, zero-copy.
     * @return false if there was nothing to read.
     */
    boolean read(ExcerptHandler handler);
}
