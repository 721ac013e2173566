package dev.spool.ringbuffer;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.SpoolException;

import java.nio.ByteBuffer;
import java.nio.file.Path;

import static dev.spool.ringbuffer.RecordDescriptor.GENERATIONS;
import static dev.spool.ringbuffer.RingBufferDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Flyweight over the fields of a ring file's header that are not the drainer's ({@link DrainState} owns those):
 * the identity (magic, version, capacity, creation time), the tail and head positions, the producers' counters and
 * the producer slot generations. Layout: {@link RingBufferDescriptor}. Thread-safe: it holds only the address of
 * the mapped header, and every method is one access of the shared memory with the ordering in its name.
 */
final class RingHeader {
    private final long address;

    /** @param address where the mapped ring file starts. */
    RingHeader(final long address) {
        this.address = address;
    }

    /**
     * Writes the header of a new ring into {@code header}, the first {@link RingBufferDescriptor#HEADER_LENGTH}
     * bytes of the file, little-endian and otherwise zero.
     */
    static void initialise(final ByteBuffer header, final int capacity, final long createdMillis) {
        header.putInt(MAGIC_OFFSET, MAGIC)
                .putInt(VERSION_OFFSET, VERSION)
                .putInt(CAPACITY_OFFSET, capacity)
                .putLong(CREATED_OFFSET, createdMillis);
    }

    /**
     * Checks the identity of the mapped ring {@code file} of {@code length} bytes against the {@code capacity} the
     * caller asked for.
     *
     * @throws CorruptQueueException naming the file, the position and the value, if the header is not a ring's.
     * @throws SpoolException        if it is a ring of another capacity.
     */
    void validate(final Path file, final long length, final int capacity) {
        final int magic = MEMORY.readInt(address + MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new CorruptQueueException(file, MAGIC_OFFSET, String.format("not a Spool ring: magic=0x%08x, expected 0x%08x",
                    magic, MAGIC));
        }
        final int version = MEMORY.readInt(address + VERSION_OFFSET);
        if (version != VERSION) {
            throw new CorruptQueueException(file, VERSION_OFFSET, "unsupported ring version=" + version + ", this build reads "
                    + VERSION);
        }
        final int actual = MEMORY.readInt(address + CAPACITY_OFFSET);
        if (actual < MIN_CAPACITY || actual > MAX_CAPACITY || Integer.bitCount(actual) != 1) {
            throw new CorruptQueueException(file, CAPACITY_OFFSET, "bad ring capacity=" + actual
                    + ": not a power of two from " + MIN_CAPACITY + " to " + MAX_CAPACITY);
        }
        if (actual != capacity) {
            throw new SpoolException("ring " + file + " has capacity=" + actual + ", not the requested " + capacity
                    + ": use the same capacity, or drain the ring and remove it with AsyncQueue.deleteRing");
        }
        if (length != fileLength(actual)) {
            throw new CorruptQueueException(file, 0, "ring file length=" + length + ", expected " + fileLength(actual)
                    + " for capacity=" + actual);
        }
    }

    /**
     * Reads the bytes not yet consumed from a copy of a ring file's header, for a file no process has mapped.
     *
     * @param header the file's first {@link RingBufferDescriptor#HEADER_LENGTH} bytes, little-endian.
     * @param file   the ring file, for the message.
     * @return the tail position minus the head position.
     * @throws CorruptQueueException if the copy does not start with a ring's magic and version.
     */
    static long unconsumedLength(final ByteBuffer header, final Path file) {
        final int magic = header.getInt(MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new CorruptQueueException(file, MAGIC_OFFSET, String.format("not a Spool ring: magic=0x%08x, expected 0x%08x",
                    magic, MAGIC));
        }
        final int version = header.getInt(VERSION_OFFSET);
        if (version != VERSION) {
            throw new CorruptQueueException(file, VERSION_OFFSET, "unsupported ring version=" + version + ", this build reads "
                    + VERSION);
        }
        return header.getLong(TAIL_POSITION_OFFSET) - header.getLong(HEAD_POSITION_OFFSET);
    }

    /** @return the tail position, with acquire semantics: every byte ever claimed lies below it. */
    long readVolatileTail() {
        return MEMORY.readVolatileLong(address + TAIL_POSITION_OFFSET);
    }

    /** @return true if this compare-and-swap (a full fence) moved the tail from {@code expected} to {@code update}. */
    boolean compareAndSetTail(final long expected, final long update) {
        return MEMORY.compareAndSwapLong(address + TAIL_POSITION_OFFSET, expected, update);
    }

    /** @return the head position, with acquire semantics: every byte before it has been consumed. */
    long readVolatileHead() {
        return MEMORY.readVolatileLong(address + HEAD_POSITION_OFFSET);
    }

    /** Moves the head with a release store: whatever the consumer did with the records before it is visible first. */
    void writeOrderedHead(final long position) {
        MEMORY.writeOrderedLong(address + HEAD_POSITION_OFFSET, position);
    }

    /** @return the release limit, with acquire semantics: bytes before it may be overwritten from now on. */
    long readVolatileReleaseLimit() {
        return MEMORY.readVolatileLong(address + RELEASE_LIMIT_OFFSET);
    }

    /**
     * Raises the release limit with a volatile store, whose full fence orders it before the fill that follows: a ring
     * reader whose copy may hold filled bytes then finds the limit past the record.
     */
    void writeVolatileReleaseLimit(final long position) {
        MEMORY.writeVolatileLong(address + RELEASE_LIMIT_OFFSET, position);
    }

    /** @return the free position, with acquire semantics: producers may claim the space before it again. */
    long readVolatileFreePosition() {
        return MEMORY.readVolatileLong(address + FREE_POSITION_OFFSET);
    }

    /**
     * Moves the free position with a release store, so that whatever the consumer wrote to the space before it (the
     * next lap's unclaimed words) is visible to a producer that sees the new position and claims the space.
     */
    void writeOrderedFreePosition(final long position) {
        MEMORY.writeOrderedLong(address + FREE_POSITION_OFFSET, position);
    }

    /** @return the high-water mark, with acquire semantics. */
    long readVolatileHighWaterMark() {
        return MEMORY.readVolatileLong(address + HIGH_WATER_MARK_OFFSET);
    }

    /** @return true if this compare-and-swap moved the high-water mark from {@code expected} to {@code update}. */
    boolean compareAndSetHighWaterMark(final long expected, final long update) {
        return MEMORY.compareAndSwapLong(address + HIGH_WATER_MARK_OFFSET, expected, update);
    }

    /** Counts a claim that found the ring full, with an atomic add: producers of every process count here. */
    void addVolatileBackPressureEvent() {
        MEMORY.addLong(address + BACK_PRESSURE_EVENTS_OFFSET, 1);
    }

    /** @return the claims that found the ring full, with acquire semantics. */
    long readVolatileBackPressureEvents() {
        return MEMORY.readVolatileLong(address + BACK_PRESSURE_EVENTS_OFFSET);
    }

    /** Counts a revoked claim, with an atomic add: any instance that reads the ring may revoke. */
    void addVolatileRevokedClaim() {
        MEMORY.addLong(address + REVOKED_CLAIMS_OFFSET, 1);
    }

    /** @return the revoked claims, with acquire semantics. */
    long readVolatileRevokedClaims() {
        return MEMORY.readVolatileLong(address + REVOKED_CLAIMS_OFFSET);
    }

    /** Counts an unblocked claim, with an atomic add: any instance that reads the ring may unblock. */
    void addVolatileUnblockedClaim() {
        MEMORY.addLong(address + UNBLOCKED_CLAIMS_OFFSET, 1);
    }

    /** @return the unblocked claims, with acquire semantics. */
    long readVolatileUnblockedClaims() {
        return MEMORY.readVolatileLong(address + UNBLOCKED_CLAIMS_OFFSET);
    }

    /**
     * Bumps the generation of producer {@code slot}, which the caller's process has just locked, so that claims a
     * dead predecessor left in the slot are not taken for this process's. Volatile load and store: no other process
     * changes the byte while the slot's lock is held.
     *
     * @return the slot's new generation.
     */
    int writeVolatileNextGeneration(final int slot) {
        final long generationAddress = address + SLOT_GENERATIONS_OFFSET + slot;
        final int generation = (MEMORY.readVolatileByte(generationAddress) + 1) & (GENERATIONS - 1);
        MEMORY.writeVolatileByte(generationAddress, (byte) generation);
        return generation;
    }

    /** @return the current generation of producer {@code slot}, with acquire semantics. */
    int readVolatileGeneration(final int slot) {
        return MEMORY.readVolatileByte(address + SLOT_GENERATIONS_OFFSET + slot) & 0xFF;
    }
}
