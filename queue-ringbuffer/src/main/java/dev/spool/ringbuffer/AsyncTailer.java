package dev.spool.ringbuffer;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.CommitMode;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptReader;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.Crc32cOfMemory;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.NamedPosition;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytesStore;
import org.agrona.concurrent.NanoClock;

import java.lang.invoke.VarHandle;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

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
 * It moves like an {@link ExcerptTailer}, forward only: {@link #moveToIndex(long)} finds an index in the queue or,
 * not drained yet, in the ring; {@link #toStart()} and {@link #toEnd()}; {@link #await(long, TimeUnit)} sleeps
 * until a record is committed. A named tailer ({@link AsyncQueue#createTailer(String, CommitMode)}) persists its
 * position in the queue's metadata under its name, the same entry a queue tailer of that name uses, and resumes
 * after it, an index read from the ring included: delivery is at-least-once as {@link CommitMode} describes.
 * <p>
 * A ring record is copied into the tailer's own buffer and checked after the copy: if the release limit passed the
 * record meanwhile (so it may have been reused) the copy is discarded and the record read from the queue instead.
 * The handler therefore gets the tailer's buffer for ring records and the queue's mapped memory for queue
 * excerpts; either is valid only during the call, and holds the payload's bytes as the appender wrote them. Byte order: the payload's bytes are as the writer gave them; the multi-byte accessors of this {@code BytesStore} ({@code readLong}, {@code writeInt}...) use the native byte order, little-endian on x86-64 and AArch64.
 * Reads never block and allocate nothing. One tailer belongs to one thread at a time.
 */
public final class AsyncTailer implements ExcerptReader {
    /** The longest sleep of {@link #await}: how late it sees a record committed by another process, at most. */
    static final long MAX_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);
    /** The first sleep of {@link #await}; each sleep doubles up to {@link #MAX_PARK_NANOS}. */
    static final long MIN_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(1);
    private static final ExcerptHandler SKIP = (bytes, offset, length, index) -> { };

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
    private final RollCycle rollCycle;
    private final QueueRead queueRead = new QueueRead();
    /** The position persisted under the tailer's name, or null. */
    private final NamedPosition named;
    private final CommitMode commitMode;
    private final boolean commitOnRead;
    /** Rung by the appenders of this process after each commit, while {@link #await} sleeps. */
    private final Doorbell doorbell;
    /** The queue's monotonic clock, of {@link #await}'s deadline. */
    private final NanoClock nanoClock;
    private volatile Thread sleeper;
    private boolean inRing;
    private long ringPosition;
    /**
     * A stale lower bound of the ring's free position plus its capacity: every header word below it belongs to the
     * lap of its position (unclaimed, in progress or committed), so a poll below it loads that word and nothing of
     * the producers' (the tail's line stays in the cache of the producer that claims next).
     */
    private long readLimit;
    /** The header word of the record at {@link #ringPosition}, as {@link #peekRing()} checked it. */
    private long peekedWord;
    private long lastIndex = -1;
    /** The highest index read, the most a commit may persist; -1 before any read. */
    private long highestRead = -1;
    private long ringReads;
    private boolean closed;

    AsyncTailer(final AsyncQueue owner, final RingBuffer ring, final SpoolQueue queue, final int maxLength,
                final NamedPosition named, final CommitMode commitMode, final Doorbell.Group commits) {
        final QueueInternals internals = queue.unwrap(QueueInternals.class);
        this.checksumLength = internals.checksums() ? CHECKSUM_LENGTH : 0;
        this.crc = internals.verifyChecksums() ? new Crc32cOfMemory() : null;
        this.owner = owner;
        this.ring = ring;
        this.drained = new DrainState(ring.address());
        this.store = ring.store();
        this.rollCycle = queue.rollCycle();
        this.rule = new CycleRule(queue.unwrap(QueueInternals.class).calendar());
        this.copy = BytesStore.nativeStoreWithFixedCapacity(Math.max(Long.BYTES, maxLength));
        this.copyAddress = copy.addressForWrite(0);
        this.tailer = queue.createTailer();
        this.named = named;
        this.commitMode = commitMode;
        this.commitOnRead = named != null && commitMode == CommitMode.ON_READ;
        this.doorbell = commits.add(this::wake);
        this.nanoClock = ring.nanoClock();
    }

    /** Moves a named tailer after the index committed under its name; any tailer starts at the start otherwise. */
    void resume() {
        final long committed = named == null ? -1 : named.committedIndex();
        if (committed >= 0 && moveToIndex(committed)) {
            advance(SKIP);
            highestRead = committed;
        }
    }

    /**
     * Reads the next excerpt, from the queue or from the ring, and in {@link CommitMode#ON_READ} persists its index
     * under the tailer's name once the handler returns.
     *
     * @param handler receives the payload and the excerpt's queue index.
     * @return false if there was nothing to read.
     * @throws SpoolException if the tailer is closed.
     */
    public boolean read(final ExcerptHandler handler) {
        checkOpen();
        if (!advance(handler)) {
            return false;
        }
        final long index = lastIndex;
        if (index > highestRead) {
            highestRead = index;
        }
        if (commitOnRead) {
            named.commit(index);
        }
        return true;
    }

    /** Moves past the next excerpt, giving it to {@code handler}; persists nothing. */
    private boolean advance(final ExcerptHandler handler) {
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
     * Waits until {@link #read(ExcerptHandler)} has an excerpt to return, without spinning: it parks, and an
     * appender of this process that commits a record to the ring unparks it; a record committed by another
     * process is seen at the end of a park that grows from a microsecond to a millisecond. While no
     * tailer waits, an appender's commit pays one read of a field that does not change.
     *
     * @param timeout how long to wait at most.
     * @param unit    the unit of {@code timeout}.
     * @return true if the next read returns an excerpt, false on timeout.
     * @throws InterruptedException if the thread is interrupted while waiting.
     * @throws SpoolException       if the tailer is closed.
     */
    public boolean await(final long timeout, final TimeUnit unit) throws InterruptedException {
        checkOpen();
        if (hasNext()) {
            return true;
        }
        final long deadline = nanoClock.nanoTime() + unit.toNanos(timeout);
        long park = MIN_PARK_NANOS;
        sleeper = Thread.currentThread();
        try {
            while (true) {
                // armed before the check: a commit after the check rings it, and the park returns at once
                doorbell.arm();
                if (hasNext()) {
                    return true;
                }
                final long remaining = deadline - nanoClock.nanoTime();
                if (remaining <= 0) {
                    return false;
                }
                LockSupport.parkNanos(this, Math.min(remaining, park));
                park = Math.min(park << 1, MAX_PARK_NANOS);
                if (Thread.interrupted()) {
                    throw new InterruptedException("interrupted while awaiting a record of ring " + ring.path());
                }
            }
        } finally {
            doorbell.disarm();
            sleeper = null;
        }
    }

    private void wake() {
        final Thread waiting = sleeper;
        if (waiting != null) {
            LockSupport.unpark(waiting);
        }
    }

    /** @return true if the next read returns an excerpt; moves into or out of the ring as a read would. */
    private boolean hasNext() throws InterruptedException {
        while (true) {
            if (!inRing) {
                if (tailer.await(0, TimeUnit.NANOSECONDS)) {
                    return true;
                }
                if (!enterRing()) {
                    return false;
                }
            }
            final int next = peekRing();
            if (next >= 0) {
                return next > 0;
            }
            leaveRing();
        }
    }

    /**
     * Positions the tailer so that the next read returns the excerpt at {@code index}: in the queue, or in the ring
     * if the drainer has not copied it yet.
     *
     * @param index an index.
     * @return false, leaving the position unchanged, if no excerpt has that index yet.
     * @throws SpoolException if the tailer is closed.
     */
    public boolean moveToIndex(final long index) {
        checkOpen();
        if (index < 0) {
            return false;
        }
        // twice: the drainer may copy the record into the queue between the ring walk and the queue's check
        for (int attempt = 0; attempt < 2; attempt++) {
            if (tailer.moveToIndex(index)) {
                inRing = false;
                // the queue read of index comes next and sets it; until then, no ring walk needs it
                lastIndex = -1;
                return true;
            }
            final int found = findInRing(index);
            if (found >= 0) {
                return found > 0;
            }
        }
        return false;
    }

    /**
     * Walks the ring from the drained snapshot to the committed record that gets {@code index}.
     *
     * @return 1 if the tailer now sits before it, 0 if no committed record gets it, -1 if the drainer released
     * records meanwhile: look in the queue again.
     */
    private int findInRing(final long index) {
        if (!drained.readVolatileSnapshot() && !drained.hasSnapshot()) {
            return 0;
        }
        if (drained.snapshotIndex() >= index) {
            return -1;
        }
        rule.reset(drained.snapshotIndex(), drained.snapshotTime());
        long position = drained.snapshotPosition();
        while (position < ring.tail()) {
            final long word = ring.headerWordAt(position);
            final int length = length(word);
            if (length <= 0) {
                return 0;
            }
            final long claimTime = ring.claimTime(position);
            // the header and time loads complete before the check: bytes released meanwhile are not trusted
            VarHandle.acquireFence();
            if (ring.releaseLimit() > position) {
                return -1;
            }
            ring.checkRecord(word, position);
            if (type(word) == TYPE_DATA) {
                final long before = rule.lastIndex();
                final long beforeTime = rule.lastTime();
                final long next = rule.next(claimTime);
                if (next == index) {
                    // the tailer sits before the record: the rule as it was, so the next read gives it this index
                    rule.reset(before, beforeTime);
                    ringPosition = position;
                    lastIndex = before;
                    inRing = true;
                    return 1;
                }
                if (next > index) {
                    return 0;
                }
            }
            position += align(length);
        }
        return 0;
    }

    /**
     * Moves before the first excerpt of the queue.
     *
     * @return this tailer.
     * @throws SpoolException if the tailer is closed.
     */
    public AsyncTailer toStart() {
        checkOpen();
        tailer.toStart();
        inRing = false;
        lastIndex = -1;
        return this;
    }

    /**
     * Moves after the last excerpt, the records committed to the ring and not yet drained included: the next read
     * returns a record committed after this call (or a claim made before it and committed after).
     *
     * @return this tailer.
     * @throws SpoolException if the tailer is closed.
     */
    public AsyncTailer toEnd() {
        checkOpen();
        final long end = ring.tail();
        final long last = owner.queue().lastIndex();
        if (last < 0 || !tailer.moveToIndex(last) || !tailer.read(SKIP)) {
            tailer.toStart();
            lastIndex = -1;
        } else {
            lastIndex = last;
        }
        inRing = false;
        while (!(inRing && ringPosition >= end) && advance(SKIP)) {
            // skips what the drainer has not copied yet, up to the ring's tail when called
        }
        return this;
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
            if (position >= ring.tail()) {
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
                throw new SpoolException("ring " + ring.path() + " gives index " + IndexFormat.format(rule.lastIndex(), rollCycle)
                        + " at position " + position + " after a drained snapshot at index "
                        + IndexFormat.format(drained.snapshotIndex(), rollCycle) + ", past the queue's "
                        + IndexFormat.format(lastIndex, rollCycle) + " that this tailer read last: something other than"
                        + " the ring's drainer wrote to queue " + owner.queue().directory());
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
        final int next = peekRing();
        if (next <= 0) {
            return next;
        }
        final long position = ringPosition;
        final int length = length(peekedWord);
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

    /**
     * Moves over padding to the next committed data record, leaving {@link #ringPosition} at it and its header
     * word, read once, in {@link #peekedWord}.
     *
     * @return 1 if there is one, 0 if there is none yet, -1 if the record was released: read the queue.
     */
    private int peekRing() {
        while (true) {
            final long position = ringPosition;
            if (position >= readLimit && position >= (readLimit = ring.freePosition() + ring.capacity())) {
                // the ring is full up to here: the bytes are still the unreleased record of the lap before
                return 0;
            }
            // acquire, after the free position's: a word that is not committed yet reads as length 0 or less
            final long word = ring.headerWordAt(position);
            if (ring.releaseLimit() > position) {
                return -1;
            }
            final int length = length(word);
            if (length <= 0) {
                return 0;
            }
            ring.checkRecord(word, position);
            if (type(word) == TYPE_DATA) {
                peekedWord = word;
                return 1;
            }
            ringPosition = position + align(length);
        }
    }

    /** Goes back to the queue, after the last excerpt read. */
    private void leaveRing() {
        inRing = false;
        if (lastIndex < 0) {
            tailer.toStart();
        } else if (!tailer.moveToIndex(lastIndex) || !tailer.read(SKIP)) {
            throw new SpoolException("queue " + owner.queue().directory() + " lacks index "
                    + IndexFormat.format(lastIndex, rollCycle) + " that ring " + ring.path() + " says it drained");
        }
    }

    /**
     * Persists {@code index} as the last excerpt processed under this tailer's name: a tailer of the name created
     * later, of the queue or the ring, in any process, after a crash too, resumes after it. Needed in
     * {@link CommitMode#EXPLICIT}; in {@link CommitMode#ON_READ} the next read overwrites it.
     *
     * @param index an index this tailer has read, or an earlier one.
     * @throws SpoolException if the tailer has no name, or {@code index} is negative or past what it has read.
     */
    public void commit(final long index) {
        checkOpen();
        if (named == null) {
            throw new SpoolException("commit(" + IndexFormat.format(index, rollCycle) + ") on an unnamed tailer of ring "
                    + ring.path() + ": only a named tailer has a position to persist");
        }
        if (index < 0 || index > highestRead) {
            throw new SpoolException("commit(" + IndexFormat.format(index, rollCycle) + ") by named tailer '"
                    + named.name() + "' of ring " + ring.path() + ": it may commit only an index it has read, at most "
                    + IndexFormat.format(highestRead, rollCycle));
        }
        named.commit(index);
    }

    /**
     * Commits the highest index this tailer has read; see {@link #commit(long)}.
     *
     * @throws SpoolException if the tailer has no name or has read nothing.
     */
    public void commit() {
        commit(highestRead);
    }

    /** @return the name this tailer's position persists under, or null. */
    public String name() {
        return named == null ? null : named.name();
    }

    /** @return when this tailer persists its position; {@link CommitMode#ON_READ} for an unnamed one, which never does. */
    public CommitMode commitMode() {
        return commitMode;
    }

    /** @return the index of the last excerpt read, or -1 if none or if a move was the last thing done. */
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

    /** Releases the tailer's buffer, its queue tailer and its name. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            doorbell.close();
            tailer.close();
            if (named != null) {
                named.close();
            }
            copy.releaseLast();
            owner.closed(this);
        }
    }

    /**
     * @throws SpoolException once this tailer or its ring is closed: closing the async queue closes both, and the
     *                        ring's flag is the one another thread's close is sure to make visible.
     */
    private void checkOpen() {
        if (closed || ring.isClosed()) {
            throw new SpoolException("tailer of ring " + ring.path() + " is closed");
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
