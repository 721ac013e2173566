package dev.spool.queue.engine;

import dev.spool.queue.SpoolException;
import dev.spool.queue.typed.ExcerptSink;
import net.openhft.chronicle.bytes.BytesStore;

/** A generated method writer's way into a queue appender: its claim, claimed memory, commit and rollback. */
final class AppenderSink implements ExcerptSink {
    private final StoreAppender appender;

    AppenderSink(final StoreAppender appender) {
        this.appender = appender;
    }

    @Override
    public long claim(final int length, final String method) {
        try {
            return appender.claim(length);
        } catch (SpoolException e) {
            throw new SpoolException(method + ": a message of " + length + " bytes cannot be appended: "
                    + e.getMessage(), e);
        }
    }

    @Override
    public BytesStore<?, ?> bytes() {
        return appender.claimedBytes();
    }

    @Override
    public boolean commit(final int length) {
        appender.commit(length);
        return true;
    }

    @Override
    public void rollback() {
        appender.rollback();
    }
}
