package dev.spool.queue.engine;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.SpoolException;
import dev.spool.queue.internal.SyncTrigger;
import dev.spool.queue.internal.Crc32cOfMemory;
import dev.spool.queue.internal.IndexedAppender;
import dev.spool.queue.typed.TypedMessages;

import net.openhft.chronicle.bytes.BytesStore;

import java.nio.ByteBuffer;
import java.util.Objects;

import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET;
import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUM_LENGTH;
import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUM_OFFSET;
import static dev.spool.queue.format.ExcerptDescriptor.HEADER_LENGTH;
import static dev.spool.queue.format.ExcerptDescriptor.PUBLISHER_ID_OFFSET;
import static dev.spool.queue.format.ExcerptDescriptor.PUBLISHER_SEQUENCE_OFFSET;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Appends to a queue's cycle files: checks the caller's arguments and claims, copies payloads into the tail its
 * {@link TailWriter} holds under the write lock (after the body's prefix: the CRC32C field in a checksummed queue,
 * and the publisher id and sequence in a queue with publisher ids, which it fills before the header is published),
 * and after the lock is released rings the doorbells, flushes as the sync policy asks, and applies retention after a
 * roll.
 */
final class StoreAppender implements ExcerptAppender {
    private static final int NO_CLAIM = -1;

    private final Store store;
    private final MetadataFile metadata;
    private final int maxMessageLength;
    /** Where a payload starts from its excerpt's header: after the body's prefix. */
    private final int payloadOffset;
    /**
     * Bytes a data excerpt's body holds before its payload: the CRC32C field, the publisher id and sequence, or
     * none; the one test an append makes for a queue whose bodies are their payloads.
     */
    private final int prefixLength;
    /** True if the body's prefix holds the publisher id and sequence. */
    private final boolean publisherIds;
    /** Computes each body's CRC32C; null in a queue without checksums. */
    private final Crc32cOfMemory crc;
    private final TailWriter tail;
    private final SyncTrigger trigger;
    private final AppenderCounters counters = new AppenderCounters();
    private long lastIndex = -1;
    private int claimLength = NO_CLAIM;
    private boolean closed;
    /** The publisher id the next excerpt stores: 0 but within {@link #appendAs}. */
    private long publisherId;
    /** The publisher's sequence the next excerpt stores: 0 but within {@link #appendAs}. */
    private long publisherSequence;

    /**
     * @param term the queue's term now, read before its role was checked: a later fence or demotion stops this
     *             appender at its next write.
     */
    StoreAppender(final Store store, final SyncTrigger trigger, final long term) {
        this.store = store;
        this.metadata = store.metadata();
        this.maxMessageLength = store.maxMessageLength();
        this.prefixLength = store.bodyPrefixLength();
        this.payloadOffset = HEADER_LENGTH + prefixLength;
        this.publisherIds = store.publisherIds();
        this.crc = store.checksums() ? new Crc32cOfMemory() : null;
        this.trigger = trigger;
        this.tail = new TailWriter(store, trigger != null, counters, term);
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
        tail.bytes().write(tail.position() + payloadOffset, src, src.position(), length);
        return endWrite(address, length);
    }

    @Override
    public long append(final BytesStore<?, ?> src, final long offset, final int length) {
        return write(TailWriter.NEXT, src, offset, length);
    }

    /**
     * Appends a payload with its publisher's id and sequence, stored ahead of it in a queue with publisher ids and
     * dropped in another; see {@link dev.spool.queue.internal.PublisherAppender}.
     */
    long appendAs(final long publisherId, final long sequence, final BytesStore<?, ?> src, final long offset,
                  final int length) {
        this.publisherId = publisherId;
        this.publisherSequence = sequence;
        try {
            return write(TailWriter.NEXT, src, offset, length);
        } finally {
            // an append refused before its excerpt was written must not lend them to the next one
            this.publisherId = 0;
            this.publisherSequence = 0;
        }
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
        MEMORY.copyMemory(src, offset, address + payloadOffset, length);
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
            MEMORY.copyMemory(src.addressForRead(offset), address + payloadOffset, (long) length);
        } else {
            tail.bytes().write(tail.position() + payloadOffset, src, offset, length);
        }
        return endWrite(address, length);
    }

    /**
     * Appends at {@code index} a data excerpt's body as another queue of the same kind stores it (its prefix, then
     * the payload), verbatim, so that the two queues' files hold the same bytes; see
     * {@link IndexedAppender#appendBodyAt}. A body whose CRC32C does not match what follows it is refused, unwritten.
     */
    long appendBodyAt(final long index, final BytesStore<?, ?> src, final long offset, final int bodyLength) {
        checkAppend(bodyLength - prefixLength);
        if (offset < src.start() || offset + bodyLength > src.capacity()) {
            throw new SpoolException("offset=" + offset + " length=" + bodyLength + " outside the source's ["
                    + src.start() + ", " + src.capacity() + ")");
        }
        final long address = tail.begin(checkIndex(index));
        if (src.isDirectMemory()) {
            MEMORY.copyMemory(src.addressForRead(offset), address + HEADER_LENGTH, (long) bodyLength);
        } else {
            tail.bytes().write(tail.position() + HEADER_LENGTH, src, offset, bodyLength);
        }
        if (crc != null) {
            // checked where it was copied to, in the tail that only this writer can see yet
            final int stored = MEMORY.readInt(address + CHECKSUM_OFFSET);
            final int computed = crc.of(address + CHECKSUMMED_PAYLOAD_OFFSET, bodyLength - CHECKSUM_LENGTH);
            if (stored != computed) {
                // nothing of it stays: a replica's files hold the bytes of its primary's, zeros past the tail
                MEMORY.setMemory(address + HEADER_LENGTH, bodyLength, (byte) 0);
                tail.abandon();
                throw new SpoolException(String.format("index %s of %s: the body's CRC32C field holds 0x%08x"
                        + " but its payload of length=%d gives 0x%08x: damaged before it arrived, not written",
                        IndexFormat.format(index, store.rollCycle()), store.directory(), stored,
                        bodyLength - CHECKSUM_LENGTH, computed));
            }
        }
        return endBodyWrite(address, bodyLength - prefixLength);
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
        tail.claim(maxLength + prefixLength);
        claimLength = maxLength;
        return tail.position() + payloadOffset;
    }

    @Override
    public <T> T methodWriter(final Class<T> events) {
        return TypedMessages.writer(events, new AppenderSink(this), store.schemaFiles());
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

    AppenderCounters counters() {
        return counters;
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
        // one test on the hot path of a queue whose bodies are their payloads: the prefix is in a method of its own
        if (prefixLength != 0) {
            writePrefix(address, length);
        }
        return endBodyWrite(address, length);
    }

    /**
     * Fills the body's prefix before the header's release store, so a reader that sees the header sees it: the
     * publisher id and sequence, then the CRC32C of everything after its field (0 without checksums).
     */
    private void writePrefix(final long address, final int length) {
        if (publisherIds) {
            MEMORY.writeLong(address + PUBLISHER_ID_OFFSET, publisherId);
            MEMORY.writeLong(address + PUBLISHER_SEQUENCE_OFFSET, publisherSequence);
        }
        if (crc != null) {
            MEMORY.writeInt(address + CHECKSUM_OFFSET,
                    crc.of(address + CHECKSUMMED_PAYLOAD_OFFSET, length + prefixLength - CHECKSUM_LENGTH));
        } else {
            MEMORY.writeInt(address + CHECKSUM_OFFSET, 0);
        }
    }

    /** Publishes the excerpt whose body is complete at {@code address}, then does what follows an append. */
    private long endBodyWrite(final long address, final int length) {
        // evaluated before the header is published, while the tail's chunk is the one the payload is in
        final int action = trigger == null ? SyncTrigger.DO_NOTHING
                : trigger.onAppend(tail.bytes(), tail.position() + payloadOffset, length);
        lastIndex = tail.publish(address, length + prefixLength);
        counters.appended(length);
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
