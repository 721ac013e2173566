package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.CommitMode;
import dev.spool.queue.Direction;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SyncMarkerHandler;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.internal.Crc32cOfMemory;

import net.openhft.chronicle.bytes.Bytes;

import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.time.Instant;
import java.util.concurrent.TimeUnit;

import static dev.spool.queue.format.ExcerptDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Reads a queue's cycle files. Forward reads follow the headers; backward reads and {@link #moveToIndex(long)}
 * find positions through the sparse index, with the tailer's {@link ExcerptLocator}. In a checksummed queue every
 * read checks the excerpt's CRC32C before delivering it, unless the queue instance was opened to skip that. A body
 * tailer delivers each data excerpt's body as stored (its prefix: the CRC32C field, the publisher id and sequence, as
 * the queue's features have them; then the payload), for a replica's copy; any other delivers the payload alone.
 */
final class StoreTailer implements ExcerptTailer {
    private final Store store;
    private final MetadataFile metadata;
    private final CycleFiles cycleFiles;
    private final RollCycle rollCycle;
    /** The position persisted under the tailer's name, or null. */
    private final StoreNamedPosition named;
    /** True if each read persists its index: a named tailer in {@link CommitMode#ON_READ}. */
    private final boolean commitOnRead;
    private final CommitMode commitMode;
    private final IdleStrategy idle;
    private final NanoClock nanoClock;
    private final MappedCursor cursor = new MappedCursor("tailer");
    private final ExcerptLocator locator;
    private final int maxDataLength;
    /** Where a handler's bytes start from an excerpt's header: the payload, or the body of a body tailer. */
    private final int deliveredOffset;
    /** Bytes of a data body that the handler is not given: the body's prefix for a payload tailer, or none. */
    private final int skippedLength;
    /** The smallest body a data header may give: 1 byte of payload, and the body's prefix. */
    private final int minDataLength;
    /** Checks each CRC32C read; null if the queue has none or this instance skips the check. */
    private final Crc32cOfMemory crc;

    private Direction direction = Direction.FORWARD;
    private SyncMarkerHandler syncMarkerHandler;
    private CycleFile file;
    private long cycle = -1;
    private long cycleBase;
    private long spacingMask;
    /** Forward: the header of the next excerpt to look at. */
    private long position;
    /** The sequence of the next excerpt to read, in either direction. */
    private long sequence;
    /** The highest index read, the most a commit may persist; -1 before any read. */
    private long highestRead = -1;
    private boolean closed;

    StoreTailer(final Store store, final StoreNamedPosition named, final CommitMode commitMode,
                final IdleStrategy idle) {
        this(store, named, commitMode, idle, false);
    }

    /** @param bodies true to deliver each data excerpt's body as stored, its prefix included. */
    StoreTailer(final Store store, final StoreNamedPosition named, final CommitMode commitMode,
                final IdleStrategy idle, final boolean bodies) {
        this.store = store;
        this.metadata = store.metadata();
        this.cycleFiles = store.cycleFiles();
        this.rollCycle = store.rollCycle();
        this.named = named;
        this.commitMode = commitMode;
        this.commitOnRead = named != null && commitMode == CommitMode.ON_READ;
        this.idle = idle;
        this.nanoClock = store.nanoClock();
        this.maxDataLength = store.maxDataLength();
        this.locator = new ExcerptLocator(metadata, cursor, maxDataLength, store.verifyChecksums());
        final int prefixLength = store.bodyPrefixLength();
        this.deliveredOffset = HEADER_LENGTH + (bodies ? 0 : prefixLength);
        this.skippedLength = bodies ? 0 : prefixLength;
        this.minDataLength = 1 + prefixLength;
        this.crc = store.verifyChecksums() ? new Crc32cOfMemory() : null;
    }

    @Override
    public boolean read(final ExcerptHandler handler) {
        if (direction == Direction.BACKWARD) {
            final long at = peekBackward();
            if (at < 0) {
                return false;
            }
            final long index = cycleBase | sequence;
            // map the excerpt's chunk before taking the store
            final int length = checkedLength(MEMORY.readVolatileInt(cursor.address(at)), at, index);
            handler.onExcerpt(cursor.store(), at + deliveredOffset, length - skippedLength, index);
            retreat(index);
            return true;
        }
        final int header = peek();
        if (header == 0) {
            return false;
        }
        final long index = cycleBase | sequence;
        final int length = checkedLength(header, position, index);
        handler.onExcerpt(cursor.store(), position + deliveredOffset, length - skippedLength, index);
        advance(length, index);
        return true;
    }

    @Override
    public long read(final Bytes<?> into) {
        if (direction == Direction.BACKWARD) {
            final long at = peekBackward();
            if (at < 0) {
                return -1;
            }
            final long index = cycleBase | sequence;
            final int length = checkedLength(MEMORY.readVolatileInt(cursor.address(at)), at, index);
            into.write(cursor.store(), at + deliveredOffset, length - skippedLength);
            retreat(index);
            return index;
        }
        final int header = peek();
        if (header == 0) {
            return -1;
        }
        final long index = cycleBase | sequence;
        final int length = checkedLength(header, position, index);
        into.write(cursor.store(), position + deliveredOffset, length - skippedLength);
        advance(length, index);
        return index;
    }

    /**
     * @return the body length of the data excerpt at {@code at}, whose header is {@code header}, after checking its
     * CRC32C if this tailer checks them.
     * @throws CorruptQueueException if its body is too short to hold its prefix and a payload, or the CRC32C it holds
     *                               is not that of what follows it.
     */
    private int checkedLength(final int header, final long at, final long index) {
        final int length = length(header);
        // one test on the hot path of a queue without checksums: the checks are in a method of their own
        if (length < minDataLength || crc != null) {
            checkBody(length, header, at, index);
        }
        return length;
    }

    private void checkBody(final int length, final int header, final long at, final long index) {
        if (length < minDataLength) {
            throw new CorruptQueueException(file.path(), at, String.format("bad header 0x%08x (%s) of index %s: a"
                    + " data excerpt of this queue holds at least %d bytes", header, describe(header),
                    IndexFormat.format(index, rollCycle), minDataLength));
        }
        final long address = cursor.address(at);
        final int expected = MEMORY.readInt(address + CHECKSUM_OFFSET);
        final int found = crc.of(address + CHECKSUMMED_PAYLOAD_OFFSET, length - CHECKSUM_LENGTH);
        if (found != expected) {
            throw checksumMismatch(at, index, expected, found, length + 1 - minDataLength);
        }
    }

    private CorruptQueueException checksumMismatch(final long at, final long index, final int expected, final int found,
                                                   final int payloadLength) {
        return new CorruptQueueException(file.path(), at, String.format("CRC32C mismatch in the excerpt of index %s"
                + " (payload length=%d): expected 0x%08x (stored with it), found 0x%08x (computed from its payload);"
                + " the payload or its checksum is damaged", IndexFormat.format(index, rollCycle), payloadLength,
                expected, found));
    }

    private void advance(final int length, final long index) {
        position += alignedLength(length);
        sequence++;
        recordRead(index);
    }

    /** A named tailer on read persists the last index it read: a tailer of its name resumes after it. */
    private void recordRead(final long index) {
        if (index > highestRead) {
            highestRead = index;
        }
        if (commitOnRead) {
            named.commit(index);
        }
    }

    @Override
    public void commit() {
        commit(highestRead);
    }

    @Override
    public void commit(final long index) {
        checkOpen();
        if (named == null) {
            throw new SpoolException("commit(" + IndexFormat.format(index, rollCycle) + ") on an unnamed tailer of "
                    + store.directory() + ": only a named tailer has a position to persist");
        }
        if (index < 0 || index > highestRead) {
            throw new SpoolException("commit(" + IndexFormat.format(index, rollCycle) + ") by named tailer '" + named.name()
                    + "' of " + store.directory() + ": it may commit only an index it has read, at most "
                    + IndexFormat.format(highestRead, rollCycle));
        }
        named.commit(index);
    }

    @Override
    public CommitMode commitMode() {
        return commitMode;
    }

    /**
     * Moves forward over metadata, ends of cycle and missing cycles to the next data excerpt: its header, with
     * {@link #position} at it, or 0 if there is none yet.
     * <p>
     * The common case, a data excerpt that needs none of the locator's checks, is small enough for the JIT to inline
     * into the read; everything else is in {@link #peekSlow()}.
     */
    private int peek() {
        if (file != null && !closed) {
            final int header = MEMORY.readVolatileInt(cursor.address(position));
            if (isData(header) && length(header) <= maxDataLength && (sequence & spacingMask) != 0
                    && cycle >= metadata.highestCycle()) {
                return header;
            }
        }
        return peekSlow();
    }

    private int peekSlow() {
        checkOpen();
        while (true) {
            if (file == null) {
                if (!nextCycle()) {
                    return 0;
                }
                continue;
            }
            int header = MEMORY.readVolatileInt(cursor.address(position));
            if (isData(header)) {
                // the hot path reads this tailer's own fields; only a rare case pays the locator's full check
                if (length(header) > maxDataLength || (sequence & spacingMask) == 0 || cycle < metadata.highestCycle()) {
                    locator.checkData(header, position, sequence);
                }
                return header;
            }
            if (header == 0 || isInProgress(header)) {
                if (!locator.endsExcerpts(position, sequence)) {
                    continue;
                }
                // a writer only starts a later cycle after ending this one, so a later cycle means no more data here
                if (cycle >= metadata.highestCycle()) {
                    return 0;
                }
                header = MEMORY.readVolatileInt(cursor.address(position));
                if (header == 0 || isInProgress(header)) {
                    if (!nextCycle()) {
                        return 0;
                    }
                    continue;
                }
            }
            if (isEndOfCycle(header)) {
                locator.checkEnd(position, sequence);
                if (cycle >= metadata.highestCycle() || !nextCycle()) {
                    return 0;
                }
            } else if (isMetadata(header) && length(header) <= locator.metadataLimit()) {
                if (syncMarkerHandler != null && length(header) == SYNC_MARKER_LENGTH) {
                    deliverSyncMarker();
                }
                position += alignedLength(length(header));
            } else if (!isData(header)) {
                throw locator.corrupt(header, position);
            }
        }
    }

    /** Moves to the first excerpt of the next cycle that has a file. */
    private boolean nextCycle() {
        if (metadata.highestCycle() < 0 || (file != null && cycle >= metadata.highestCycle())) {
            return false;
        }
        final long listed = file == null && cycle < 0 ? cycleFiles.first() : cycleFiles.next(cycle);
        final CycleFile nextFile = cycleFiles.acquireFrom(listed);
        if (nextFile == null) {
            return false;
        }
        attach(nextFile);
        position = CycleDescriptor.DATA_OFFSET;
        sequence = 0;
        return true;
    }

    private void retreat(final long index) {
        sequence--;
        recordRead(index);
    }

    /** @return the position of the excerpt a backward read returns next, moving to earlier cycles; or -1. */
    private long peekBackward() {
        checkOpen();
        if (file == null) {
            return -1;
        }
        while (sequence < 0) {
            final CycleFile previousFile = cycleFiles.acquirePrevious(cycle);
            if (previousFile == null) {
                return -1;
            }
            attach(previousFile);
            toEndOfFile();
            sequence--;
        }
        return locator.positionOf(sequence);
    }

    /** Walks to the tail of the current file: {@link #sequence} becomes the count of excerpts in it. */
    private void toEndOfFile() {
        locator.toEnd();
        position = locator.position();
        sequence = locator.sequence();
    }

    @Override
    public boolean await(final long timeout, final TimeUnit unit) throws InterruptedException {
        final long deadline = nanoClock.nanoTime() + unit.toNanos(timeout);
        idle.reset();
        while (!hasNext()) {
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while awaiting an excerpt of " + store.directory());
            }
            if (nanoClock.nanoTime() - deadline >= 0) {
                return false;
            }
            idle.idle();
        }
        return true;
    }

    private boolean hasNext() {
        return direction == Direction.FORWARD ? peek() != 0 : peekBackward() >= 0;
    }

    @Override
    public long index() {
        return file == null ? -1 : cycleBase | sequence;
    }

    @Override
    public boolean moveToIndex(final long index) {
        checkOpen();
        if (index < 0) {
            return false;
        }
        final long targetCycle = rollCycle.toCycle(index);
        final long target = rollCycle.toSequence(index);
        final CycleFile previousFile = file;
        final long previousCycle = cycle;
        final long previousPosition = position;
        final long previousSequence = sequence;
        if (targetCycle != cycle || file == null) {
            final CycleFile targetFile = cycleFiles.acquire(targetCycle);
            if (targetFile == null) {
                return false;
            }
            if (previousFile != null) {
                cycleFiles.acquire(previousFile.cycle());
            }
            attach(targetFile);
        }
        final long at = locator.positionOf(target);
        if (at >= 0) {
            position = at;
            sequence = target;
            if (previousFile != null && previousFile != file) {
                cycleFiles.release(previousFile);
            }
            return true;
        }
        if (previousFile != file) {
            if (previousFile == null) {
                detach();
            } else {
                // the extra reference taken above becomes the tailer's again
                attach(previousFile);
            }
        }
        cycle = previousCycle;
        position = previousPosition;
        sequence = previousSequence;
        return false;
    }

    @Override
    public ExcerptTailer moveToTime(final Instant time) {
        checkOpen();
        if (!CycleDescriptor.hasIndexTimes(metadata.features())) {
            throw new SpoolException("queue " + store.directory() + " was created without indexTimes: moveToTime("
                    + time + ") needs a queue created with SpoolQueueBuilder.indexTimes(true)");
        }
        final long timeMillis = floorMillis(time);
        // Cycles hold ever later excerpts: the last one with an entry before the time holds the place to start.
        final long[] cycles = cycleFiles.cycles();
        int low = 0;
        int high = cycles.length - 1;
        long foundCycle = -1;
        long foundSequence = -1;
        while (low <= high) {
            final int mid = (low + high) >>> 1;
            final long sequence = indexedSequenceBefore(cycles[mid], timeMillis);
            if (sequence >= 0) {
                foundCycle = cycles[mid];
                foundSequence = sequence;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        if (foundCycle < 0 || !moveToIndex(rollCycle.toIndex(foundCycle, foundSequence))) {
            toStart();
        } else if (direction == Direction.FORWARD) {
            // the entry's time was read after its excerpt was appended, and before the next one was: past it
            position += alignedLength(length(MEMORY.readVolatileInt(cursor.address(position))));
            sequence++;
        }
        return this;
    }

    /** @return the sequence {@link ExcerptLocator#indexedSequenceBefore} finds in {@code cycle}, or -1. */
    private long indexedSequenceBefore(final long cycle, final long timeMillis) {
        final CycleFile probed = cycleFiles.acquire(cycle);
        if (probed == null) {
            return -1;
        }
        attach(probed);
        if (!locator.hasTimes()) {
            throw new CorruptQueueException(probed.path(), CycleDescriptor.FEATURES_OFFSET, "features=0x"
                    + Integer.toHexString(probed.features()) + " lack index times, which the queue's metadata has");
        }
        return locator.indexedSequenceBefore(timeMillis);
    }

    /** @return {@code time} in ms since 1970, rounded down, saturated to the range of a long. */
    private static long floorMillis(final Instant time) {
        final long seconds = time.getEpochSecond();
        if (seconds >= Long.MAX_VALUE / 1000) {
            return Long.MAX_VALUE;
        }
        if (seconds <= Long.MIN_VALUE / 1000) {
            return Long.MIN_VALUE;
        }
        return seconds * 1000 + time.getNano() / 1_000_000;
    }

    @Override
    public ExcerptTailer toStart() {
        checkOpen();
        detach();
        cycle = -1;
        // the first file that exists: retention may delete the first one listed before it is opened
        final CycleFile firstFile = cycleFiles.acquireFrom(cycleFiles.first());
        if (firstFile != null) {
            attach(firstFile);
            position = CycleDescriptor.DATA_OFFSET;
            sequence = direction == Direction.BACKWARD ? -1 : 0;
        }
        return this;
    }

    @Override
    public ExcerptTailer toEnd() {
        checkOpen();
        detach();
        cycle = -1;
        final CycleFile lastFile = cycleFiles.acquireLast(metadata.highestCycle());
        if (lastFile != null) {
            attach(lastFile);
            toEndOfFile();
            if (direction == Direction.BACKWARD) {
                sequence--;
            }
        }
        return this;
    }

    @Override
    public ExcerptTailer direction(final Direction direction) {
        if (this.direction != direction && file != null) {
            // the tailer sits between two excerpts: forward reads the one after, backward the one before
            if (direction == Direction.BACKWARD) {
                sequence--;
            } else {
                final long next = sequence + 1;
                final long at = locator.positionOf(next);
                if (at >= 0) {
                    position = at;
                    sequence = next;
                } else {
                    toEndOfFile();
                }
            }
        }
        this.direction = direction;
        return this;
    }

    @Override
    public Direction direction() {
        return direction;
    }

    @Override
    public ExcerptTailer syncMarkers(final SyncMarkerHandler handler) {
        this.syncMarkerHandler = handler;
        return this;
    }

    private void deliverSyncMarker() {
        final long address = cursor.address(position);
        if (MEMORY.readInt(address + HEADER_LENGTH + METADATA_TYPE_OFFSET) == TYPE_SYNC_MARKER) {
            syncMarkerHandler.onSyncMarker(MEMORY.readLong(address + SYNC_MARKER_INDEX_OFFSET),
                    MEMORY.readLong(address + SYNC_MARKER_TIME_OFFSET));
        }
    }

    @Override
    public String name() {
        return named == null ? null : named.name();
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        detach();
        if (named != null) {
            named.close();
        }
        store.closed(this);
    }

    private void checkOpen() {
        if (closed) {
            throw new SpoolException("tailer of " + store.directory() + " is closed");
        }
    }

    private void attach(final CycleFile next) {
        detach();
        file = next;
        cycle = next.cycle();
        cycleBase = rollCycle.toIndex(cycle, 0);
        spacingMask = next.indexSpacing() - 1;
        cursor.attach(next);
        locator.attach(next);
    }

    private void detach() {
        cursor.detach();
        locator.detach();
        if (file != null) {
            final CycleFile released = file;
            file = null;
            cycleFiles.release(released);
        }
    }
}
