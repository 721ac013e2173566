package dev.spool.queue.engine;

import dev.spool.queue.internal.IndexedAppender;

import net.openhft.chronicle.bytes.BytesStore;

/** An {@link IndexedAppender} over a store's appender, which checks each index against the tail. */
final class StoreIndexedAppender implements IndexedAppender {
    private final StoreAppender appender;

    StoreIndexedAppender(final StoreAppender appender) {
        this.appender = appender;
    }

    @Override
    public long appendAt(final long index, final BytesStore<?, ?> src, final long offset, final int length) {
        return appender.appendAt(index, src, offset, length);
    }

    @Override
    public long appendAt(final long index, final byte[] src, final int offset, final int length) {
        return appender.appendAt(index, src, offset, length);
    }

    @Override
    public long appendBodyAt(final long index, final BytesStore<?, ?> src, final long offset, final int bodyLength) {
        return appender.appendBodyAt(index, src, offset, bodyLength);
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
