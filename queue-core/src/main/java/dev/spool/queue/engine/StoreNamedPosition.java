package dev.spool.queue.engine;

import dev.spool.queue.SpoolException;
import dev.spool.queue.internal.NamedPosition;

/** A named tailer's entry in the metadata file, the one place its persisted position is read and written. */
final class StoreNamedPosition implements NamedPosition {
    private final Store store;
    private final MetadataFile metadata;
    private final String name;
    /** Where the entry's last committed index lies in the metadata file. */
    private final long indexOffset;
    private boolean closed;

    StoreNamedPosition(final Store store, final String name, final long indexOffset) {
        this.store = store;
        this.metadata = store.metadata();
        this.name = name;
        this.indexOffset = indexOffset;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long committedIndex() {
        checkOpen();
        return metadata.readVolatileLong(indexOffset);
    }

    @Override
    public void commit(final long index) {
        checkOpen();
        // a release store: a reader of another process that sees the index sees everything written before it
        metadata.writeOrderedLong(indexOffset, index);
    }

    /** @throws SpoolException once closed: closing the queue closes the position, and unmaps the metadata after. */
    private void checkOpen() {
        if (closed) {
            throw new SpoolException("named tailer '" + name + "' of " + store.directory() + " is closed");
        }
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            store.closed(this);
        }
    }
}
