package dev.spool.ringbuffer;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.Crc32cOfMemory;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.typed.MethodReader;
import dev.spool.queue.typed.TypedMessages;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytesStore;

import java.lang.invoke.VarHandle;

import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUM_LENGTH;
import static dev.spool.ringbuffer.RecordDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Reads an {@link AsyncQueue} in queue order, from the queue and then from the ring: once it has read everything
 * in the queue it reads the committed records still in the ring, before they reach the queue's files, each with
 * the index it gets in the queue (the drainer and this tailer apply the same {@code CycleRule} to the same claim
 * times). It never waits for the drainer: a drained record stays in the ring until the drainer is a reserve past it
 * ({@link AsyncQueueBuilder#ringReserve(int)}), and only once the ring's release limit passes a record this tailer
 * has not read does it go on from the queue at the next index, without a gap or a repeat. From the queue it moves
 * back into the ring at the first read that finds the queue's end: it takes a drained snapshot no later than its
 * last index (the newest, or if the drainer is changing it the last one it read) and walks the ring from there to
 * that index, at most the batch being drained.
 * <p>
 * A ring record is copied into the tailer's own buffer and checked after the copy: if the release limit passed the
 * record meanwhile (so it may have been reused) the copy is discarded and the record read from the queue instead.
 * The handler therefore gets the tailer's buffer for ring records and the queue's mapped memory for queue
 * excerpts; either is valid only during the call. Reads never block and allocate nothing.
 * One tailer belongs to one thread at a time.
 */
public final class AsyncTailer implements AutoCloseable {
    private final AsyncQueue owner;
    private final RingBuffer ring;
    /** This tailer's own view of the drain state: it keeps the snapshot it read. */
    private final DrainState drained;
    private final ExcerptTailer tailer;
    private final MappedBytesStore store;
    private final BytesStore<?, Void> copy;
    private final long copyAddress;
    /** Bytes of a record's body before the payload: the CRC32C field in front of a checksummed queue, or none. */
    private final int checksumLength;
    /** Checks the CRC32C of each record read from the ring; null if the queue has none or skips the check. */
    private final Crc32cOfMemory crc;
    private final CycleRule rule;
    private final QueueRead queueRead = new QueueRead();
    private boolean inRing;
    private long ringPosition;
    private long lastIndex = -1;
    private long ringReads;
    private boolean closed;

    AsyncTailer(final AsyncQueue owner, final RingBuffer ring, final SpoolQueue queue, final int maxLength) {
        final QueueInternals internals = QueueInternals.of(queue);
        this.checksumLength = internals.checksums() ? CHECKSUM_LENGTH : 0;
        this.crc = internals.verifyChecksums() ? new Crc32cOfMemory() : null;
        this.owner = owner;
        this.ring = ring;
        this.drained = new DrainState(ring.address());
        this.store = ring.store();
        this.rule = new CycleRule(QueueInternals.of(queue).calendar());
        this.copy = BytesStore.nativeStoreWithFixedCapacity(Math.max(Long.BYTES, maxLength));
        this.copyAddress = copy.addressForWrite(0);
        this.tailer = queue.createTailer();
    }

    /**
     * Reads the next excerpt, from the queue or from the ring.
     *
     * @param handler receives the payload and the excerpt's queue index.
     * @return false if there was nothing to read.
     */
    public boolean read(final ExcerptHandler handler) {
        if (closed) {
            throw new IllegalStateException("tailer of " + ring.path() + " is closed");
        }
        while (true) {
            if (!inRing) {
                queueRead.target = handler;
                if (tailer.read(queueRead)) {
                    lastIndex = queueRead.index;
                    return true;
                }
                if (!enterRing()) {
                    return false;
                }
            }
            final int read = readRing(handler);
            if (read >= 0) {
                return read > 0;
            }
            leaveRing();
        }
    }

    /**
     * Moves into the ring at the record after {@link #lastIndex}: from a drained snapshot no later than it, the latest
     * or else the last one read, walks the ring with the cycle rule to that index. Never waits on the drainer: the
     * walk covers at most the batch being drained, whose records stay in the ring until a reserve after it.
     *
     * @return false if the queue holds excerpts this tailer has not read, or no snapshot serves yet.
     */
    private boolean enterRing() {
        if (!drained.readVolatileSnapshot() && !drained.hasSnapshot()) {
            return false;
        }
        if (drained.snapshotIndex() > lastIndex) {
            // the queue holds excerpts this tailer has not seen yet
            return false;
        }
        rule.reset(drained.snapshotIndex(), drained.snapshotTime());
        long position = drained.snapshotPosition();
        while (rule.lastIndex() != lastIndex) {
            if (position >= ring.tailPosition()) {
                return false;
            }
            final long word = ring.headerWordAt(position);
            final int length = length(word);
            if (length <= 0) {
                return false;
            }
            final long claimTime = ring.claimTime(position);
            // the header and time loads complete before the check: bytes released meanwhile are not trusted
            VarHandle.acquireFence();
            if (ring.releaseLimit() > position) {
                return false;
            }
            ring.checkRecord(word, position);
            if (type(word) == TYPE_DATA && rule.next(claimTime) > lastIndex) {
                throw new SpoolException("ring " + ring.path() + " gives index " + Long.toHexString(rule.lastIndex())
                        + " at position " + position + " after a drained snapshot at index "
                        + Long.toHexString(drained.snapshotIndex()) + ", past the queue's " + Long.toHexString(lastIndex)
                        + " that this tailer read last: something other than the ring's drainer wrote to queue "
                        + owner.queue().directory());
            }
            position += align(length);
        }
        if (ring.releaseLimit() > position) {
            return false;
        }
        ringPosition = position;
        inRing = true;
        return true;
    }

    /** @return 1 if a record was read, 0 if there is none yet, -1 if the record was released: read the queue. */
    private int readRing(final ExcerptHandler handler) {
        while (true) {
            final long position = ringPosition;
            if (position >= ring.tailPosition()) {
                // unclaimed: the bytes there may still be the undrained record of the lap before
                return 0;
            }
            final long word = ring.headerWordAt(position);
            if (ring.releaseLimit() > position) {
                return -1;
            }
            final int length = length(word);
            if (length <= 0) {
                return 0;
            }
            ring.checkRecord(word, position);
            if (type(word) != TYPE_DATA) {
                ringPosition = position + align(length);
                continue;
            }
            final int payloadLength = length - RecordDescriptor.HEADER_LENGTH - checksumLength;
            final long claimTime = ring.claimTime(position);
            final long body = store.addressForRead(ring.payloadOffset(position));
            final int stored = checksumLength == 0 ? 0 : MEMORY.readInt(body);
            MEMORY.copyMemory(body + checksumLength, copyAddress, (long) payloadLength);
            // the copy's loads complete before the check below: a record released meanwhile is not trusted
            VarHandle.acquireFence();
            if (ring.releaseLimit() > position) {
                return -1;
            }
            if (crc != null) {
                final int found = crc.of(copyAddress, payloadLength);
                if (found != stored) {
                    throw new CorruptQueueException(ring.path(), ring.payloadOffset(position), String.format("CRC32C"
                            + " mismatch in the ring record at ring position %d (payload length=%d): expected 0x%08x"
                            + " (stored by its producer), found 0x%08x (computed from its payload)", position,
                            payloadLength, stored, found));
                }
            }
            final long index = rule.next(claimTime);
            ringPosition = position + align(length);
            lastIndex = index;
            ringReads++;
            handler.onExcerpt(copy, 0, payloadLength, index);
            return 1;
        }
    }

    /** Goes back to the queue, after the last excerpt read. */
    private void leaveRing() {
        inRing = false;
        if (lastIndex < 0) {
            tailer.toStart();
        } else if (!tailer.moveToIndex(lastIndex) || !tailer.read(SKIP)) {
            throw new SpoolException("queue " + owner.queue().directory() + " lacks index " + Long.toHexString(lastIndex)
                    + " that ring " + ring.path() + " says it drained");
        }
    }

    private static final ExcerptHandler SKIP = (bytes, offset, length, index) -> { };

    /**
     * Returns a reader of typed messages over this tailer: records from the ring before they reach disk, then the
     * queue; see {@link dev.spool.queue.ExcerptTailer#methodReader(Object)}.
     *
     * @param target implements exactly one interface annotated {@link dev.spool.queue.typed.Events}.
     * @return the reader the {@code spool-processor} generated for that interface, over this tailer.
     */
    public MethodReader methodReader(final Object target) {
        return TypedMessages.reader(this::read, target);
    }

    /** @return the index of the last excerpt read, or -1 if none. */
    public long lastIndex() {
        return lastIndex;
    }

    /** @return true if the next read looks in the ring: this tailer has read everything drained so far. */
    public boolean isReadingRing() {
        return inRing;
    }

    /** @return how many excerpts this tailer has read from the ring rather than from the queue. */
    public long ringReads() {
        return ringReads;
    }

    /** Releases the tailer's buffer and its queue tailer. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            tailer.close();
            copy.releaseLast();
            owner.closed(this);
        }
    }

    /** Remembers the index of a queue excerpt on its way to the caller's handler. */
    private static final class QueueRead implements ExcerptHandler {
        private ExcerptHandler target;
        private long index;

        @Override
        public void onExcerpt(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
            this.index = index;
            target.onExcerpt(bytes, offset, length, index);
        }
    }
}
