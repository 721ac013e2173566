package dev.spool.ringbuffer;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.SpoolException;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytesStore;
import net.openhft.chronicle.bytes.MappedFile;
import net.openhft.chronicle.core.io.ReferenceOwner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.UUID;

import static dev.spool.ringbuffer.RecordDescriptor.*;
import static dev.spool.ringbuffer.RingBufferDescriptor.*;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * A multi-producer ring buffer in a memory-mapped file (layout: {@code RingBufferDescriptor}), shared by the
 * threads and processes that open the same path; on tmpfs ({@code /dev/shm}) it costs no disk I/O and survives
 * the crash of any process that uses it, though not a reboot.
 * <pre>{@code
 * try (RingBuffer ring = RingBuffer.open(Path.of("/dev/shm/orders.ring"), 1 << 20)) {
 *     long position = ring.tryClaim(8);
 *     if (position >= 0) {
 *         ring.buffer().writeLong(ring.payloadOffset(position), orderId);
 *         ring.commit(position);
 *     }
 * }
 * }</pre>
 * Producers claim with a compare-and-swap on the tail, write the payload straight into the mapped memory and
 * commit with a compare-and-swap of the record header (a release); {@link #abort(long)} turns a claim into padding.
 * A claim whose producer process died, or that stays uncommitted longer than the claim timeout, is revoked by the
 * consumer: turned into padding so the ring moves on; the late producer's {@link #commit(long)} then returns false.
 * <p>
 * Claiming, committing and aborting are thread-safe and allocate nothing. Reading is for one consumer at a time
 * across every process: a {@link Drainer} holds the ring's drainer lock for that; {@link #read(RingHandler, int)}
 * leaves it to the caller.
 */
public final class RingBuffer implements AutoCloseable, ReferenceOwner {
    /** What {@link #tryClaim(int)} returns when the ring has no room until the consumer catches up. */
    public static final long INSUFFICIENT_CAPACITY = -2;
    /** The claim timeout {@link #open(Path, int)} uses. */
    public static final Duration DEFAULT_CLAIM_TIMEOUT = Duration.ofSeconds(10);
    /** The blocked-claim timeout {@link #open(Path, int)} and {@link #open(Path, int, Duration)} use. */
    public static final Duration DEFAULT_BLOCKED_CLAIM_TIMEOUT = Duration.ofSeconds(1);
    private static final Logger LOG = LoggerFactory.getLogger(RingBuffer.class);
    /** A claim younger than this is never checked for a dead owner: the check is a system call. */
    static final long OWNER_PROBE_AGE_MS = 1;

    private final Path path;
    private final MappedFile mappedFile;
    private final MappedBytesStore store;
    private final long address;
    private final long dataAddress;
    private final int capacity;
    private final long mask;
    /** log2 of the capacity: a position's lap is {@code position >>> capacityShift}. */
    private final int capacityShift;
    private final int maxPayloadLength;
    private final long claimTimeoutMs;
    private final long blockedClaimTimeoutMs;
    private final RingLocks locks;
    private final int slot;
    /** This instance's slot and the slot's generation, as record headers carry them. */
    private final int owner;
    private final RingStats stats;
    /** A stale lower bound of the shared high-water mark, so that most claims only compare. */
    private long highWaterCache;
    /** The consumer's watch: the position it last found blocked, and since when (ms); the consumer's thread only. */
    private long blockedPosition = -1;
    private long blockedSinceMs;
    private boolean closed;

    private RingBuffer(final Path path, final MappedFile mappedFile, final MappedBytesStore store, final int capacity,
                       final Duration claimTimeout, final Duration blockedClaimTimeout, final RingLocks locks) {
        this.path = path;
        this.mappedFile = mappedFile;
        this.store = store;
        this.address = store.addressForWrite(0);
        this.dataAddress = address + RingBufferDescriptor.HEADER_LENGTH;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.capacityShift = Integer.numberOfTrailingZeros(capacity);
        this.maxPayloadLength = RingBufferDescriptor.maxPayloadLength(capacity);
        this.claimTimeoutMs = Math.max(1, claimTimeout.toMillis());
        this.blockedClaimTimeoutMs = Math.max(1, blockedClaimTimeout.toMillis());
        this.locks = locks;
        this.slot = locks.claimProducerSlot();
        // the slot's lock is held: no other process changes its generation now
        final long generationAddress = address + SLOT_GENERATIONS_OFFSET + slot;
        final int generation = (MEMORY.readVolatileByte(generationAddress) + 1) & (GENERATIONS - 1);
        MEMORY.writeVolatileByte(generationAddress, (byte) generation);
        this.owner = owner(slot, generation);
        this.stats = new RingStats(this);
    }

    /**
     * Opens the ring at {@code path}, creating it with {@code capacity} bytes of data if it does not exist, with
     * the {@linkplain #DEFAULT_CLAIM_TIMEOUT default claim timeout} and the
     * {@linkplain #DEFAULT_BLOCKED_CLAIM_TIMEOUT default blocked-claim timeout}.
     *
     * @param path     the ring file; on tmpfs for low latency.
     * @param capacity bytes of data: a power of two from 4 KiB to 1 GiB; an existing ring must have this capacity.
     * @return the mapped ring.
     */
    public static RingBuffer open(final Path path, final int capacity) {
        return open(path, capacity, DEFAULT_CLAIM_TIMEOUT);
    }

    /**
     * Opens the ring at {@code path}, creating it with {@code capacity} bytes of data if it does not exist, with
     * the {@linkplain #DEFAULT_BLOCKED_CLAIM_TIMEOUT default blocked-claim timeout}.
     *
     * @param path         the ring file; on tmpfs for low latency.
     * @param capacity     bytes of data: a power of two from 4 KiB to 1 GiB; an existing ring must have this capacity.
     * @param claimTimeout how long a claim of a live producer may stay uncommitted before this instance, when it
     *                     reads, revokes it; claims of dead producers are revoked at once.
     * @return the mapped ring.
     */
    public static RingBuffer open(final Path path, final int capacity, final Duration claimTimeout) {
        return open(path, capacity, claimTimeout, DEFAULT_BLOCKED_CLAIM_TIMEOUT);
    }

    /**
     * Opens the ring at {@code path}, creating it with {@code capacity} bytes of data if it does not exist.
     *
     * @param path                the ring file; on tmpfs for low latency.
     * @param capacity            bytes of data: a power of two from 4 KiB to 1 GiB; an existing ring must have
     *                            this capacity.
     * @param claimTimeout        how long a claim of a live producer may stay uncommitted before this instance,
     *                            when it reads, revokes it; claims of dead producers are revoked at once.
     * @param blockedClaimTimeout how long this instance, when it reads, waits at a claim whose header was never
     *                            written (its producer died or stalled between taking the space and writing the
     *                            header) before it unblocks it: turns the space into padding, see
     *                            {@link #tryClaim(int)}.
     * @return the mapped ring.
     */
    public static RingBuffer open(final Path path, final int capacity, final Duration claimTimeout,
                                  final Duration blockedClaimTimeout) {
        checkCapacity(path, capacity);
        if (claimTimeout.isNegative() || claimTimeout.isZero()) {
            throw new IllegalArgumentException("claimTimeout=" + claimTimeout + " must be positive");
        }
        if (blockedClaimTimeout.isNegative() || blockedClaimTimeout.isZero()) {
            throw new IllegalArgumentException("blockedClaimTimeout=" + blockedClaimTimeout + " must be positive");
        }
        final Path file = path.toAbsolutePath().normalize();
        if (!Files.exists(file)) {
            create(file, capacity);
        }
        final long length;
        try {
            length = Files.size(file);
        } catch (IOException e) {
            throw new SpoolException("cannot read " + file + ": " + e.getMessage(), e);
        }
        if (length < RingBufferDescriptor.HEADER_LENGTH) {
            throw new CorruptQueueException(file, 0, "ring file truncated: length=" + length + ", header needs " + RingBufferDescriptor.HEADER_LENGTH);
        }
        final MappedFile mappedFile;
        try {
            mappedFile = MappedFile.ofSingle(file.toFile(), length, false);
        } catch (IOException e) {
            throw new SpoolException("cannot map " + file + ": " + e.getMessage(), e);
        }
        RingLocks locks = null;
        MappedBytesStore store = null;
        final ReferenceOwner temporary = ReferenceOwner.temporary("ring");
        try {
            store = mappedFile.acquireByteStore(temporary, 0);
            validate(file, store, length, capacity);
            locks = RingLocks.acquire(file);
            final RingBuffer ring = new RingBuffer(file, mappedFile, store, capacity, claimTimeout, blockedClaimTimeout, locks);
            store.reserveTransfer(temporary, ring);
            return ring;
        } catch (IOException e) {
            release(mappedFile, store, temporary, locks);
            throw new SpoolException("cannot map " + file + ": " + e.getMessage(), e);
        } catch (RuntimeException e) {
            release(mappedFile, store, temporary, locks);
            throw e;
        }
    }

    private static void release(final MappedFile mappedFile, final MappedBytesStore store, final ReferenceOwner owner,
                                final RingLocks locks) {
        if (store != null) {
            store.release(owner);
        }
        mappedFile.releaseLast();
        if (locks != null) {
            locks.release();
        }
    }

    private static void checkCapacity(final Path path, final int capacity) {
        if (capacity < MIN_CAPACITY || capacity > MAX_CAPACITY || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity=" + capacity + " of ring " + path + " must be a power of two from "
                    + MIN_CAPACITY + " to " + MAX_CAPACITY);
        }
    }

    /** Writes the whole file, so that tmpfs holds its pages now and a full tmpfs is an exception, not a SIGBUS. */
    private static void create(final Path file, final int capacity) {
        final Path temp = file.resolveSibling(file.getFileName() + "." + UUID.randomUUID() + ".tmp");
        try {
            Files.createDirectories(file.getParent());
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                final ByteBuffer header = ByteBuffer.allocate(RingBufferDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
                header.putInt(MAGIC_OFFSET, MAGIC)
                        .putInt(VERSION_OFFSET, VERSION)
                        .putInt(CAPACITY_OFFSET, capacity)
                        .putLong(CREATED_OFFSET, System.currentTimeMillis())
                        .putLong(INTENT_START_OFFSET, -1)
                        .putLong(INTENT_END_OFFSET, -1)
                        .putLong(INTENT_LAST_INDEX_OFFSET, -1)
                        .putLong(LAST_DRAINED_INDEX_OFFSET, -1);
                writeFully(channel, header);
                final ByteBuffer zeros = ByteBuffer.allocate(Math.min(capacity, 1 << 20));
                for (long written = 0; written < capacity; written += zeros.capacity()) {
                    writeFully(channel, zeros.clear());
                }
                // journal entries start invalid: position -1 matches no record
                final ByteBuffer journal = ByteBuffer.allocate(Math.min(capacity, 1 << 20)).order(ByteOrder.LITTLE_ENDIAN);
                for (int entry = 0; entry < journal.capacity(); entry += JOURNAL_ENTRY_LENGTH) {
                    journal.putLong(entry + JOURNAL_POSITION_OFFSET, -1);
                }
                for (long written = 0; written < capacity; written += journal.capacity()) {
                    writeFully(channel, journal.clear());
                }
            }
            try {
                Files.createLink(file, temp);
            } catch (FileAlreadyExistsException e) {
                // another process created it first: use theirs
            }
        } catch (IOException e) {
            throw new SpoolException("cannot create ring " + file + ": " + e.getMessage(), e);
        } finally {
            try {
                Files.deleteIfExists(temp);
            } catch (IOException e) {
                throw new SpoolException("cannot delete " + temp + ": " + e.getMessage(), e);
            }
        }
    }

    private static void writeFully(final FileChannel channel, final ByteBuffer buffer) throws IOException {
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
    }

    private static void validate(final Path file, final MappedBytesStore store, final long length, final int capacity) {
        final int magic = store.readInt(MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new CorruptQueueException(file, MAGIC_OFFSET, String.format("not a Spool ring: magic=0x%08x, expected 0x%08x",
                    magic, MAGIC));
        }
        final int version = store.readInt(VERSION_OFFSET);
        if (version != VERSION) {
            throw new CorruptQueueException(file, VERSION_OFFSET, "unsupported ring version=" + version + ", this build reads "
                    + VERSION);
        }
        final int actual = store.readInt(CAPACITY_OFFSET);
        if (actual < MIN_CAPACITY || actual > MAX_CAPACITY || Integer.bitCount(actual) != 1) {
            throw new CorruptQueueException(file, CAPACITY_OFFSET, "bad ring capacity=" + actual
                    + ": not a power of two from " + MIN_CAPACITY + " to " + MAX_CAPACITY);
        }
        if (actual != capacity) {
            throw new SpoolException("ring " + file + " has capacity=" + actual + ", not the requested " + capacity
                    + ": use the same capacity, or delete the ring once it is drained");
        }
        if (length != fileLength(actual)) {
            throw new CorruptQueueException(file, 0, "ring file length=" + length + ", expected " + fileLength(actual)
                    + " for capacity=" + actual);
        }
    }

    /**
     * Claims room for a payload of {@code length} bytes. Nothing reads past the claim until it is committed or
     * aborted, so do either promptly: a claim older than the claim timeout is revoked.
     * <p>
     * A claim is two steps: a compare-and-swap of the tail takes the space, then a compare-and-swap of the record
     * header from the lap's unclaimed word ({@link RecordDescriptor#unclaimedWord(long)}) to "in progress"
     * publishes it. If the header swap fails, the consumer found the space still unclaimed-looking for longer than
     * the blocked-claim timeout and turned it into padding (see {@link #open(Path, int, Duration, Duration)}):
     * nothing was written there, and this method simply claims again; the caller never sees such a claim.
     *
     * @param length the payload length, 0 to {@link #maxPayloadLength()}.
     * @return the claim's position, to pass to {@link #payloadOffset(long)}, {@link #commit(long)} or
     * {@link #abort(long)}; or {@link #INSUFFICIENT_CAPACITY} if the ring is too full for it.
     */
    public long tryClaim(final int length) {
        if (length < 0 || length > maxPayloadLength) {
            throw new IllegalArgumentException("length=" + length + " outside [0, " + maxPayloadLength + "] for ring " + path);
        }
        final int recordLength = length + RecordDescriptor.HEADER_LENGTH;
        long position;
        do {
            position = reserve(recordLength);
        } while (position >= 0 && !publish(position, recordLength));
        return position;
    }

    /**
     * Takes the space of a record: the tail compare-and-swap, and the padding at the wrap if the record does not
     * fit before the end of the data region. The record's header is not written.
     *
     * @return the record's position, or {@link #INSUFFICIENT_CAPACITY}.
     */
    private long reserve(final int recordLength) {
        final int required = align(recordLength);
        final long tailAddress = address + TAIL_POSITION_OFFSET;
        final long headAddress = address + HEAD_POSITION_OFFSET;
        long head = MEMORY.readVolatileLong(headAddress);
        long tail;
        int padding;
        do {
            tail = MEMORY.readVolatileLong(tailAddress);
            final int toEnd = capacity - (int) (tail & mask);
            padding = required > toEnd ? toEnd : 0;
            if (required + padding > capacity - (tail - head)) {
                // the head read first may be stale: only a fresh one proves the ring full
                head = MEMORY.readVolatileLong(headAddress);
                if (required + padding > capacity - (tail - head)) {
                    return INSUFFICIENT_CAPACITY;
                }
            }
        } while (!MEMORY.compareAndSwapLong(tailAddress, tail, tail + required + padding));
        long position = tail;
        if (padding != 0) {
            // fails only if the consumer is unblocking this space (or has released it): then it pads the record's
            // header too unless the header swap below wins, and either outcome leaves the ring consistent
            MEMORY.compareAndSwapLong(dataAddress + (position & mask), unclaimedWord(lap(position)),
                    headerWord(padding, TYPE_PADDING, owner));
            position += padding;
        }
        final long occupancy = position + required - head;
        if (occupancy > highWaterCache) {
            raiseHighWaterMark(occupancy);
        }
        return position;
    }

    /**
     * Publishes a reserved record as "in progress", then writes its claim time, which the commit's release makes
     * visible with the payload. The claim time comes after the header so that a claim whose header was never
     * written is unclaimed words only, which is what lets the consumer unblock it.
     *
     * @return false if the consumer unblocked the space first: it is padding, and nothing may be written there.
     */
    private boolean publish(final long position, final int recordLength) {
        final long recordAddress = dataAddress + (position & mask);
        if (!MEMORY.compareAndSwapLong(recordAddress, unclaimedWord(lap(position)), headerWord(-recordLength, TYPE_DATA, owner))) {
            return false;
        }
        MEMORY.writeLong(recordAddress + TIMESTAMP_OFFSET, System.currentTimeMillis());
        return true;
    }

    /** Test hook: the first step of {@link #tryClaim(int)} alone, as a producer that stalls or dies after it. */
    long claimWithoutHeader(final int length) {
        return reserve(length + RecordDescriptor.HEADER_LENGTH);
    }

    /** Test hook: the second step of {@link #tryClaim(int)}, for a claim of {@link #claimWithoutHeader(int)}. */
    boolean publishHeader(final long position, final int length) {
        return publish(position, length + RecordDescriptor.HEADER_LENGTH);
    }

    /** @return the lap of {@code position}: how many times the producers have wrapped the data region before it. */
    private long lap(final long position) {
        return position >>> capacityShift;
    }

    private void raiseHighWaterMark(final long occupancy) {
        final long markAddress = address + HIGH_WATER_MARK_OFFSET;
        long mark;
        while ((mark = MEMORY.readVolatileLong(markAddress)) < occupancy) {
            if (MEMORY.compareAndSwapLong(markAddress, mark, occupancy)) {
                mark = occupancy;
                break;
            }
        }
        highWaterCache = mark;
    }

    /**
     * @return the mapped memory of the whole ring file; write a claim's payload at {@link #payloadOffset(long)},
     * up to the claimed length.
     */
    public BytesStore<?, ?> buffer() {
        return store;
    }

    /**
     * @param position a claim's position.
     * @return where its payload starts in {@link #buffer()}.
     */
    public long payloadOffset(final long position) {
        return RingBufferDescriptor.HEADER_LENGTH + (position & mask) + RecordDescriptor.HEADER_LENGTH;
    }

    /**
     * Publishes a claim: a compare-and-swap of its header, so everything written to the payload before is visible
     * to the reader that sees it.
     *
     * @param position the claim's position.
     * @return true if committed; false if the claim had been revoked for its age: the payload is lost, and the
     * caller may claim and write it again.
     */
    public boolean commit(final long position) {
        final long recordAddress = dataAddress + (position & mask);
        final long claimed = MEMORY.readVolatileLong(recordAddress);
        if (!isClaimOf(claimed, position)) {
            return false;
        }
        return MEMORY.compareAndSwapLong(recordAddress, claimed, headerWord(-length(claimed), TYPE_DATA, owner));
    }

    /**
     * Turns a claim into padding that the reader skips.
     *
     * @param position the claim's position.
     * @return false if the claim had been revoked already.
     */
    public boolean abort(final long position) {
        final long recordAddress = dataAddress + (position & mask);
        final long claimed = MEMORY.readVolatileLong(recordAddress);
        if (!isClaimOf(claimed, position)) {
            return false;
        }
        return MEMORY.compareAndSwapLong(recordAddress, claimed, headerWord(-length(claimed), TYPE_PADDING, owner));
    }

    private boolean isClaimOf(final long headerWord, final long position) {
        if (length(headerWord) < 0 && type(headerWord) == TYPE_DATA && owner(headerWord) == owner) {
            return true;
        }
        if (type(headerWord) == TYPE_PADDING || length(headerWord) == 0 || owner(headerWord) != owner) {
            // revoked, and maybe drained and released, or reused by another producer since
            return false;
        }
        throw new IllegalStateException(String.format("no open claim at position=%d in %s: header=0x%016x", position, path,
                headerWord));
    }

    /**
     * Reads committed records from the head, for the ring's one consumer: hands each payload to {@code handler},
     * then releases what it read and moves the head past it. Stops at the first claim not yet committed, revoking
     * it if its producer is dead or it is older than the claim timeout, and unblocking it if its header stayed
     * unwritten for the blocked-claim timeout.
     *
     * @param handler receives each record's payload.
     * @param limit   the most records to read.
     * @return the number of records handed to {@code handler}.
     */
    public int read(final RingHandler handler, final int limit) {
        final long head = headPosition();
        final long tail = tailPosition();
        long position = head;
        int count = 0;
        while (position < tail && count < limit) {
            long word = headerWordAt(position);
            if (length(word) <= 0) {
                if (!resolveBlocked(position, tail)) {
                    break;
                }
                word = headerWordAt(position);
            }
            final int length = length(word);
            checkRecord(word, position);
            if (type(word) == TYPE_DATA) {
                handler.onRecord(store, payloadOffset(position), length - RecordDescriptor.HEADER_LENGTH, position);
                count++;
            }
            position += align(length);
        }
        if (position != head) {
            release(head, position);
        }
        return count;
    }

    /** @return the capacity of the data region in bytes. */
    public int capacity() {
        return capacity;
    }

    /** @return the longest payload a claim may have: an eighth of the capacity, less a record header. */
    public int maxPayloadLength() {
        return maxPayloadLength;
    }

    /** @return the position of the next claim: every byte ever claimed. */
    public long tailPosition() {
        return MEMORY.readVolatileLong(address + TAIL_POSITION_OFFSET);
    }

    /** @return the position of the oldest byte not yet consumed. */
    public long headPosition() {
        return MEMORY.readVolatileLong(address + HEAD_POSITION_OFFSET);
    }

    /** @return true if everything claimed has been consumed. */
    public boolean isEmpty() {
        return headPosition() == tailPosition();
    }

    /** @return the ring's counters, read live from the shared file. */
    public RingStats stats() {
        return stats;
    }

    /** @return the ring file. */
    public Path path() {
        return path;
    }

    /** @return the claim timeout this instance revokes claims of live producers after. */
    public Duration claimTimeout() {
        return Duration.ofMillis(claimTimeoutMs);
    }

    /** @return how long this instance waits at a claim whose header was never written before it unblocks it. */
    public Duration blockedClaimTimeout() {
        return Duration.ofMillis(blockedClaimTimeoutMs);
    }

    /**
     * Unmaps the ring and frees this instance's producer slot. Claims still open become revocable at once.
     * The file stays, with everything not yet consumed, for the next open.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        store.release(this);
        mappedFile.releaseLast();
        locks.free(slot);
        locks.release();
    }

    /** @return true once {@link #close()} has run. */
    public synchronized boolean isClosed() {
        return closed;
    }

    @Override
    public String toString() {
        return "RingBuffer{" + path + ", capacity=" + capacity + "}";
    }

    long address() {
        return address;
    }

    long dataAddress() {
        return dataAddress;
    }

    long mask() {
        return mask;
    }

    /** @return where the claim time of the record at {@code position} is in {@link #buffer()}. */
    long timestampOffset(final long position) {
        return RingBufferDescriptor.HEADER_LENGTH + (position & mask) + TIMESTAMP_OFFSET;
    }

    MappedBytesStore store() {
        return store;
    }

    RingLocks locks() {
        return locks;
    }

    /** @return the header word of the record at {@code position}, with acquire semantics. */
    long headerWordAt(final long position) {
        return MEMORY.readVolatileLong(dataAddress + (position & mask));
    }

    /** Throws on a committed header no producer writes. */
    void checkRecord(final long word, final long position) {
        final int length = length(word);
        final int type = type(word);
        final int offset = (int) (position & mask);
        if ((type != TYPE_DATA && type != TYPE_PADDING)
                || (type == TYPE_DATA && length < RecordDescriptor.HEADER_LENGTH)
                || length < ALIGNMENT || align(length) > capacity - offset) {
            throw new CorruptQueueException(path, RingBufferDescriptor.HEADER_LENGTH + offset, String.format(
                    "bad ring record header 0x%016x (ring position=%d)", word, position));
        }
    }

    /**
     * Deals with the claim at {@code position}, below {@code tail}, that stops the consumer: its header is "in
     * progress" or still the lap's unclaimed word. The consumer's thread only.
     * <p>
     * The consumer watches the position it is stopped at: the age of a blockage is how long it has found that
     * position blocked, not the claim time (which the producer writes only after its header). An in-progress claim
     * is revoked (its header swapped to padding of its length) once its owner process is dead or the age passes the
     * claim timeout; the swap races the producer's commit and exactly one wins. A claim whose header is still
     * unclaimed once the age passes the blocked-claim timeout is unblocked, see {@link #unblock(long, long)}.
     *
     * @return true if the header at {@code position} is now a committed record: revoked or unblocked here, or
     * committed or aborted meanwhile.
     */
    boolean resolveBlocked(final long position, final long tail) {
        final long recordAddress = dataAddress + (position & mask);
        final long word = MEMORY.readVolatileLong(recordAddress);
        if (length(word) > 0) {
            return true;
        }
        final long now = System.currentTimeMillis();
        if (position != blockedPosition) {
            blockedPosition = position;
            blockedSinceMs = now;
        }
        final long age = now - blockedSinceMs;
        if (length(word) == 0) {
            if (age < blockedClaimTimeoutMs) {
                return false;
            }
            unblock(position, tail);
        } else {
            if (age < claimTimeoutMs && (age < OWNER_PROBE_AGE_MS || isOwnerAlive(owner(word)))) {
                return false;
            }
            if (MEMORY.compareAndSwapLong(recordAddress, word, headerWord(-length(word), TYPE_PADDING, owner(word)))) {
                MEMORY.addLong(address + REVOKED_CLAIMS_OFFSET, 1);
            }
        }
        return length(MEMORY.readVolatileLong(recordAddress)) > 0;
    }

    /**
     * Unblocks the claim at {@code position} whose header nobody wrote: swaps each aligned word from
     * {@code position} up, still the lap's unclaimed word, to a committed padding record of
     * {@value RecordDescriptor#ALIGNMENT} bytes, until a swap fails or the tail is reached.
     * <p>
     * Why this is safe. The records below the tail tile the positions without gaps, and a producer writes nothing
     * of its record (claim time, payload) before its header swap succeeds. So a record whose header is still
     * unclaimed is unclaimed words throughout (the consumer released the space as such, see
     * {@link RecordDescriptor}). The words are swapped in rising order: when the swap of word {@code w} fails,
     * every word in {@code [position, w)} is padding now, so every producer whose header lies there fails its own
     * header swap and writes nothing; hence the word at {@code w} was not written by a producer of an earlier
     * record: it is a header, of the next record, published (in progress or committed) by its producer, and the
     * consumer carries on from there. A live producer that merely stalled between its tail and header swaps, and
     * any producer whose claim follows in the gap with its header not yet written, loses the header swap and
     * claims again ({@link #tryClaim(int)}); nothing it wrote is lost, because it wrote nothing. A single padding
     * record over the whole gap would not do: a producer inside the gap could publish its header between the
     * consumer's scan and its swap, and its committed record would be skipped. Because the unclaimed word names
     * the lap, a producer that stalls until the padding is drained and released still fails its swap: the space
     * then holds the next lap's unclaimed word.
     */
    private void unblock(final long position, final long tail) {
        final long padding = headerWord(ALIGNMENT, TYPE_PADDING, owner);
        long end = position;
        while (end < tail && MEMORY.compareAndSwapLong(dataAddress + (end & mask), unclaimedWord(lap(end)), padding)) {
            end += ALIGNMENT;
        }
        if (end != position) {
            MEMORY.addLong(address + UNBLOCKED_CLAIMS_OFFSET, 1);
            LOG.warn("unblocked a claim of ring {} whose header was never written for {} ms: its producer died or stalled"
                    + " between claiming and writing the header; position={}, padding length={}", path,
                    blockedClaimTimeoutMs, position, end - position);
        }
    }

    /** @return false if the claim's process is dead, or has given up the slot that another process now holds. */
    private boolean isOwnerAlive(final int claimOwner) {
        final int claimSlot = slotOf(claimOwner);
        if (claimSlot == RingLocks.DRAINER_SLOT || claimSlot >= RingLocks.SLOT_COUNT) {
            return false;
        }
        final int generation = MEMORY.readVolatileByte(address + SLOT_GENERATIONS_OFFSET + claimSlot) & 0xFF;
        return generation == generationOf(claimOwner) && locks.isAlive(claimSlot);
    }

    /**
     * Releases {@code [from, to)}, which the consumer has finished with: fills each word with the unclaimed word of
     * the lap that will use it next, then gives the space back to the producers.
     */
    void release(final long from, final long to) {
        final long lapEnd = (lap(from) + 1) << capacityShift;
        final long firstEnd = Math.min(to, lapEnd);
        fill(dataAddress + (from & mask), firstEnd - from, unclaimedWord(lap(from) + 1));
        if (to > firstEnd) {
            fill(dataAddress, to - firstEnd, unclaimedWord(lap(from) + 2));
        }
        // release: the unclaimed words are visible to a producer that sees the new head and claims the space
        MEMORY.writeOrderedLong(address + HEAD_POSITION_OFFSET, to);
    }

    private static void fill(final long fromAddress, final long length, final long word) {
        for (long offset = 0; offset < length; offset += ALIGNMENT) {
            MEMORY.writeLong(fromAddress + offset, word);
        }
    }

    /** Counts a claim that found the ring full. */
    void countBackPressure() {
        MEMORY.addLong(address + BACK_PRESSURE_EVENTS_OFFSET, 1);
    }

    long readVolatileLong(final int offset) {
        return MEMORY.readVolatileLong(address + offset);
    }

    void writeOrderedLong(final int offset, final long value) {
        MEMORY.writeOrderedLong(address + offset, value);
    }

    void writeVolatileLong(final int offset, final long value) {
        MEMORY.writeVolatileLong(address + offset, value);
    }

    /** Maps a drained record's position to its queue index; the drainer's thread only. */
    void journal(final long position, final long index) {
        final long entry = address + journalEntryOffset(capacity, position & mask);
        // a reader that sees -1, or a different position after reading the index, retries or gives up
        MEMORY.writeVolatileLong(entry + JOURNAL_POSITION_OFFSET, -1);
        MEMORY.writeLong(entry + JOURNAL_INDEX_OFFSET, index);
        MEMORY.writeOrderedLong(entry + JOURNAL_POSITION_OFFSET, position);
    }

    /**
     * @return the queue index the journal holds for {@code position}, -1 if it holds none yet, or -2 if the
     * entry was overwritten by a later lap.
     */
    long journalIndex(final long position) {
        final long entry = address + journalEntryOffset(capacity, position & mask);
        final long before = MEMORY.readVolatileLong(entry + JOURNAL_POSITION_OFFSET);
        final long index = MEMORY.readVolatileLong(entry + JOURNAL_INDEX_OFFSET);
        final long after = MEMORY.readVolatileLong(entry + JOURNAL_POSITION_OFFSET);
        if (before == position && after == position) {
            return index;
        }
        return Math.max(before, after) > position ? -2 : -1;
    }
}
