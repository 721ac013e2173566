package dev.spool.queue.engine;

import dev.spool.queue.internal.PublisherAppender;

import net.openhft.chronicle.bytes.BytesStore;

/** A {@link PublisherAppender} over a store's appender, which stores the publisher's id and sequence it is given. */
final class StorePublisherAppender implements PublisherAppender {
    private final StoreAppender appender;

    StorePublisherAppender(final StoreAppender appender) {
        this.appender = appender;
    }

    @Override
    public long append(final long publisherId, final long sequence, final BytesStore<?, ?> src, final long offset,
                       final int length) {
        return appender.appendAs(publisherId, sequence, src, offset, length);
    }

    @Override
    public long sync() {
        return appender.sync();
    }

    @Override
    public void close() {
        appender.close();
    }
}
