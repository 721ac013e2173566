package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.SpoolException;
import dev.spool.queue.format.CycleDescriptor;

import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.core.io.ReferenceOwner;

import java.io.IOException;

import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * One thread's window onto a cycle file: the mapped chunk that holds the position it works at, as a raw address.
 * A chunk maps {@code chunkLength + overlapLength} bytes, so an excerpt that starts in a chunk is wholly inside
 * it: an excerpt is never longer than the overlap.
 */
final class MappedCursor implements ReferenceOwner {
    /** Chunks a cycle file may have: 1 TiB with the smallest chunk length. */
    static final long MAX_CHUNKS = 1L << 20;

    private final String name;
    private final boolean reserving;
    private CycleFile file;
    private MappedBytesStore store;
    private long storeStart;
    private long storeSafeLimit;
    private long storeAddress;

    MappedCursor(final String name) {
        this(name, false);
    }

    /**
     * @param name      for reference tracing.
     * @param reserving true for a writer's cursor: reserve disk blocks for each chunk before mapping it.
     */
    MappedCursor(final String name, final boolean reserving) {
        this.name = name;
        this.reserving = reserving;
    }

    /** Works on another file from now on; releases the chunk of the previous one. */
    void attach(final CycleFile file) {
        releaseStore();
        this.file = file;
    }

    CycleFile file() {
        return file;
    }

    /**
     * @param position a byte position in the file.
     * @return the address of that position; valid up to the end of the chunk's overlap.
     */
    long address(final long position) {
        if (position < storeStart || position >= storeSafeLimit) {
            map(position);
        }
        return storeAddress + (position - storeStart);
    }

    /** @return the end of the chunk the last {@link #address(long)} mapped: positions below it start inside it. */
    long safeLimit() {
        return storeSafeLimit;
    }

    /** @return the chunk the last {@link #address(long)} mapped; its offsets are file positions. */
    MappedBytesStore store() {
        return store;
    }

    int readVolatileInt(final long position) {
        return MEMORY.readVolatileInt(address(position));
    }

    private void map(final long position) {
        releaseStore();
        final long chunkLength = file.mappedFile().chunkSize();
        if (position < 0 || position / chunkLength > MAX_CHUNKS) {
            // Chronicle counts chunks in an int and keeps a list as long as the highest chunk: a larger position would
            // map chunk 0 and be read far outside it, or exhaust the heap
            throw new CorruptQueueException(file.path(), position, "position=" + position + " is outside any file: a"
                    + " damaged index entry or header points there");
        }
        if (reserving) {
            final long chunkStart = position / chunkLength * chunkLength;
            file.reserveChunk(chunkStart, chunkStart + chunkLength + CycleDescriptor.overlapLength(chunkLength));
        }
        try {
            store = file.mappedFile().acquireByteStore(this, position);
        } catch (IOException e) {
            throw new SpoolException("cannot map position=" + position + " of " + file.path() + ": " + e.getMessage(), e);
        }
        storeStart = store.start();
        storeSafeLimit = store.safeLimit();
        storeAddress = store.addressForWrite(storeStart);
        if (position < storeStart || position >= storeSafeLimit) {
            releaseStore();
            throw new CorruptQueueException(file.path(), position, "position=" + position + " is not in the chunk"
                    + " mapped for it: a damaged index entry or header points there");
        }
    }

    /**
     * Looks for what a torn tail cannot hold: only zeros lie past the last excerpt that reached the disk.
     *
     * @param from a position 4 bytes past an 8-byte boundary, just after an excerpt header.
     * @param to   where to stop, exclusive.
     * @return the position of the first byte in {@code [from, to)} that is not zero (to the nearest 8), or -1.
     */
    long firstNonZero(final long from, final long to) {
        if (from < to && MEMORY.readVolatileInt(address(from)) != 0) {
            return from;
        }
        for (long at = from + Integer.BYTES; at < to; at += Long.BYTES) {
            if (MEMORY.readLong(address(at)) != 0) {
                return at;
            }
        }
        return -1;
    }

    /** Lets go of the mapped chunk; the cursor maps again on the next access. */
    void releaseStore() {
        if (store != null) {
            final MappedBytesStore released = store;
            store = null;
            storeStart = 0;
            storeSafeLimit = 0;
            storeAddress = 0;
            released.release(this);
        }
    }

    /** Releases the chunk and forgets the file. */
    void detach() {
        releaseStore();
        file = null;
    }

    @Override
    public String referenceName() {
        return name;
    }
}
