package dev.spool.ringbuffer;

import dev.spool.queue.SpoolException;
import dev.spool.queue.typed.ExcerptSink;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A generated method writer's way into the ring: claims under the queue's back-pressure policy, writes in the
 * ring's memory, commits. A typed call cannot return the ring-full code, so where the policy would return it this
 * throws {@link RingFullException} instead: a message is never dropped silently.
 */
final class RingSink implements ExcerptSink {
    private final AsyncAppender appender;
    private long position;

    RingSink(final AsyncAppender appender) {
        this.appender = appender;
    }

    @Override
    public long claim(final int length, final String method) {
        try {
            position = appender.claim(length);
        } catch (SpoolException e) {
            throw new SpoolException(method + ": a message of " + length + " bytes cannot be appended: "
                    + e.getMessage(), e);
        }
        if (position < 0) {
            throw new RingFullException(method + ": the ring has no room for a message of " + length + " bytes and a "
                    + "typed call cannot return the back-pressure code; nothing was written");
        }
        return appender.payloadOffset(position);
    }

    @Override
    public BytesStore<?, ?> bytes() {
        return appender.buffer();
    }

    @Override
    public boolean commit(final int length) {
        return appender.commit(position);
    }

    @Override
    public void rollback() {
        appender.abort(position);
    }
}
