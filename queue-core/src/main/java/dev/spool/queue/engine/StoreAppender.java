package dev.spool.queue.engine;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.SpoolException;
import dev.spool.queue.engine.QueueEngine.SyncTrigger;
import dev.spool.queue.internal.IndexedAppender;

import net.openhft.chronicle.bytes.BytesStore;

import java.nio.ByteBuffer;
import java.util.Objects;

import static dev.spool.queue.format.ExcerptDescriptor.HEADER_LENGTH;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Appends to a queue's cycle files: checks the caller's arguments and claims, copies payloads into the tail its
 * {@link TailWriter} holds under the write lock, and after the lock is released rings the doorbells, flushes as the
 * sync policy asks, and applies retention after a roll.
 */
final class StoreAppender implements ExcerptAppender {
    private static final int NO_CLAIM = -1;

    private final Store store;
    private final MetadataFile metadata;
    private final int maxMessageLength;
    private final TailWriter tail;
    private final SyncTrigger trigger;
    private long lastIndex = -1;
    private int claimLength = NO_CLAIM;
    private boolean closed;

    StoreAppender(final Store store, final SyncTrigger trigger) {
        this.store = store;
        this.metadata = store.metadata();
        this.maxMessageLength = store.maxMessageLength();
        this.trigger = trigger;
        this.tail = new TailWriter(store, trigger != null);
    }

    @Override
    public long append(final byte[] src, final int offset, final int length) {
        return write(TailWriter.NEXT, src, offset, length);
    }

    @Override
    public long append(final ByteBuffer src) {
        final int length = src.remaining();
        checkAppend(length);
        final long address = tail.begin(TailWriter.NEXT);
        tail.bytes().write(tail.position() + HEADER_LENGTH, src, src.position(), length);
        return endWrite(address, length);
    }

    @Override
    public long append(final BytesStore<?, ?> src, final long offset, final int length) {
        return write(TailWriter.NEXT, src, offset, length);
    }

    /** Appends at {@code index}, which must be the next index of its cycle; see {@link IndexedAppender}. */
    long appendAt(final long index, final BytesStore<?, ?> src, final long offset, final int length) {
        return write(checkIndex(index), src, offset, length);
    }

    /** Appends at {@code index}, which must be the next index of its cycle; see {@link IndexedAppender}. */
    long appendAt(final long index, final byte[] src, final int offset, final int length) {
        return write(checkIndex(index), src, offset, length);
    }

    /** The checked write path of {@code append} ({@code at} of {@link TailWriter#NEXT}) and {@code appendAt}. */
    private long write(final long at, final byte[] src, final int offset, final int length) {
        Objects.checkFromIndexSize(offset, length, src.length);
        checkAppend(length);
        final long address = tail.begin(at);
        MEMORY.copyMemory(src, offset, address + HEADER_LENGTH, length);
        return endWrite(address, length);
    }

    /** The checked write path of {@code append} ({@code at} of {@link TailWriter#NEXT}) and {@code appendAt}. */
    private long write(final long at, final BytesStore<?, ?> src, final long offset, final int length) {
        checkAppend(length);
        if (offset < src.start() || offset + length > src.capacity()) {
            throw new SpoolException("offset=" + offset + " length=" + length + " outside the source's ["
                    + src.start() + ", " + src.capacity() + ")");
        }
        final long address = tail.begin(at);
        if (src.isDirectMemory()) {
            MEMORY.copyMemory(src.addressForRead(offset), address + HEADER_LENGTH, (long) length);
        } else {
            tail.bytes().write(tail.position() + HEADER_LENGTH, src, offset, length);
        }
        return endWrite(address, length);
    }

    private long checkIndex(final long index) {
        if (index < 0) {
            throw new SpoolException("index=" + IndexFormat.format(index, store.rollCycle()) + " is negative: no excerpt of " + store.directory()
                    + " has it");
        }
        return index;
    }

    @Override
    public long claim(final int maxLength) {
        if (claimLength != NO_CLAIM) {
            throw new SpoolException("a claim of " + claimLength + " bytes is already open on this appender of "
                    + store.directory() + ": commit or roll it back first");
        }
        checkAppend(maxLength);
        tail.begin(TailWriter.NEXT);
        tail.claim(maxLength);
        claimLength = maxLength;
        return tail.position() + HEADER_LENGTH;
    }

    @Override
    public BytesStore<?, ?> claimedBytes() {
        if (claimLength == NO_CLAIM) {
            throw new SpoolException("no open claim on this appender of " + store.directory());
        }
        return tail.bytes();
    }

    @Override
    public long commit(final int length) {
        if (claimLength == NO_CLAIM) {
            throw new SpoolException("no open claim to commit on this appender of " + store.directory());
        }
        if (length < 1 || length > claimLength) {
            throw new SpoolException("commit length=" + length + " outside the claimed [1, " + claimLength
                    + "] in " + store.directory() + (length == 0 ? ": roll back an empty claim instead" : ""));
        }
        claimLength = NO_CLAIM;
        return endWrite(tail.address(), length);
    }

    @Override
    public void rollback() {
        if (claimLength == NO_CLAIM) {
            throw new SpoolException("no open claim to roll back on this appender of " + store.directory());
        }
        claimLength = NO_CLAIM;
        tail.abandon();
        applyRetentionAfterRoll();
    }

    @Override
    public long lastIndexAppended() {
        return lastIndex;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        if (claimLength != NO_CLAIM) {
            rollback();
        }
        closed = true;
        tail.releaseFile();
        store.closed(this);
    }

    boolean isClosed() {
        return closed;
    }

    private void checkOpen() {
        if (closed) {
            throw new SpoolException("appender of " + store.directory() + " is closed");
        }
    }

    private void checkAppend(final int length) {
        checkOpen();
        if (length < 1 || length > maxMessageLength) {
            throw new SpoolException("message length=" + length + (length < 1
                    ? " is empty: an excerpt needs at least 1 byte (a header of 0 means nothing written)"
                    : " exceeds maxMessageLength=" + maxMessageLength) + " of " + store.directory());
        }
        if (claimLength != NO_CLAIM) {
            throw new SpoolException("a claim is open on this appender of " + store.directory()
                    + ": commit or roll it back before appending");
        }
    }

    private long endWrite(final long address, final int length) {
        // evaluated before the header is published, while the tail's chunk is the one the payload is in
        final int action = trigger == null ? SyncTrigger.DO_NOTHING
                : trigger.onAppend(tail.bytes(), tail.position() + HEADER_LENGTH, length);
        lastIndex = tail.publish(address, length);
        store.appended();
        if (action != SyncTrigger.DO_NOTHING) {
            tail.flush(action == SyncTrigger.DO_SYNC, tail.position());
            synced(action, lastIndex);
        }
        applyRetentionAfterRoll();
        return lastIndex;
    }

    /** Deletes old cycles after a roll, outside the write lock: the roll's append does not hold up other writers. */
    private void applyRetentionAfterRoll() {
        if (tail.takeRolled()) {
            store.applyRetentionAfterRoll(tail.cycle());
        }
    }

    @Override
    public long sync() {
        checkOpen();
        if (claimLength != NO_CLAIM) {
            throw new SpoolException("a claim is open on this appender of " + store.directory()
                    + ": commit or roll it back before syncing");
        }
        final long tailIndex = tail.syncTail();
        if (tailIndex == TailWriter.EMPTY) {
            return -1;
        }
        synced(SyncTrigger.DO_SYNC, tailIndex);
        applyRetentionAfterRoll();
        return tailIndex;
    }

    /** Records what a flush made durable, and tells the sync policy what was flushed. */
    private void synced(final int action, final long throughIndex) {
        if (action == SyncTrigger.DO_SYNC && throughIndex >= 0) {
            metadata.advanceLastSyncedIndex(throughIndex);
            if (store.syncMarkers()) {
                tail.appendSyncMarker(throughIndex);
            }
        }
        if (trigger != null) {
            trigger.flushed(action);
        }
    }
}
