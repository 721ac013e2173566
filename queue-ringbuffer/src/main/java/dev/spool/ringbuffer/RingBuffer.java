package dev.spool.ringbuffer;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.SpoolQueueBuilder;
import dev.spool.queue.internal.ChronicleDefaults;
import dev.spool.queue.internal.FileModes;
import dev.spool.queue.internal.MappingGuard;
import dev.spool.queue.SpoolException;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytesStore;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.Set;

import static dev.spool.ringbuffer.RecordDescriptor.*;
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
 * <p>
 * After {@link #close()} every method that would touch the ring's memory throws a {@link SpoolException} saying the
 * ring is closed. {@link #headPosition()}, {@link #tailPosition()}, {@link #isEmpty()} and the {@link #stats()} may
 * be read from any thread at any time, a metrics thread's included, even while another thread closes the ring: the
 * memory stays mapped until every such read in progress is done. Claims, commits and reads belong to the threads
 * of their producers and consumer, which must stop using the ring before it closes.
 */
public final class RingBuffer implements AutoCloseable {
    static {
        // before any Chronicle class loads, when a ring is used without a SpoolQueue
        ChronicleDefaults.apply();
    }

    /** What {@link #tryClaim(int)} returns when the ring has no room until the consumer catches up. */
    public static final long INSUFFICIENT_CAPACITY = -2;
    /** The claim timeout {@link #open(Path, int)} uses. */
    public static final Duration DEFAULT_CLAIM_TIMEOUT = Duration.ofSeconds(10);
    /** The blocked-claim timeout {@link #open(Path, int)} and {@link #open(Path, int, Duration)} use. */
    public static final Duration DEFAULT_BLOCKED_CLAIM_TIMEOUT = Duration.ofSeconds(1);
    private final RingFile file;
    private final Path path;
    private final MappedBytesStore store;
    private final long address;
    private final long dataAddress;
    private final int capacity;
    private final long mask;
    /** log2 of the capacity: a position's lap is {@code position >>> capacityShift}. */
    private final int capacityShift;
    private final int maxPayloadLength;
    private final RingHeader header;
    private final DrainState drainState;
    private final IndexJournal journal;
    private final RingConsumer consumer;
    private final Duration claimTimeout;
    private final Duration blockedClaimTimeout;
    private final int slot;
    /** This instance's slot and the slot's generation, as record headers carry them. */
    private final int owner;
    private final RingStats stats;
    /** A stale lower bound of the shared high-water mark, so that most claims only compare. */
    private long highWaterCache;
    /** Stamps each claim: the drainer picks the record's cycle from it. A final field: one load per claim. */
    private final EpochClock epochClock;
    /** Measures the age of a claim that stops the consumer, and the waits of the appenders and tailers. */
    private final NanoClock nanoClock;
    /** Keeps the ring mapped while a view of any thread reads it; closed before it is unmapped. */
    private final MappingGuard guard;

    private RingBuffer(final RingFile file, final int capacity, final Duration claimTimeout,
                       final Duration blockedClaimTimeout, final EpochClock epochClock, final NanoClock nanoClock) {
        this.file = file;
        this.epochClock = epochClock;
        this.nanoClock = nanoClock;
        this.path = file.path();
        this.store = file.store();
        this.address = store.addressForWrite(0);
        this.dataAddress = address + RingBufferDescriptor.HEADER_LENGTH;
        this.capacity = capacity;
        this.mask = capacity - 1;
        this.capacityShift = Integer.numberOfTrailingZeros(capacity);
        this.maxPayloadLength = RingBufferDescriptor.maxPayloadLength(capacity);
        this.header = new RingHeader(address);
        this.drainState = new DrainState(address);
        this.journal = new IndexJournal(address, capacity);
        this.slot = file.locks().claimProducerSlot();
        this.owner = owner(slot, header.writeVolatileNextGeneration(slot));
        this.claimTimeout = Duration.ofMillis(Math.max(1, claimTimeout.toMillis()));
        this.blockedClaimTimeout = Duration.ofMillis(Math.max(1, blockedClaimTimeout.toMillis()));
        this.consumer = new RingConsumer(this, header, new ClaimRevoker(path, header, file.locks(), dataAddress, capacity,
                owner, this.claimTimeout.toNanos(), this.blockedClaimTimeout.toNanos(), nanoClock), dataAddress, capacity);
        this.guard = new MappingGuard("ring " + path);
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
        return open(path, capacity, claimTimeout, blockedClaimTimeout, SpoolQueueBuilder.DEFAULT_FILE_MODE);
    }

    /**
     * Opens the ring at {@code path}, creating it and its lock file with the given permissions if absent.
     *
     * @param path                the ring's file, e.g. under {@code /dev/shm}.
     * @param capacity            a power of two from 4 KiB to 1 GiB; an existing ring must have it.
     * @param claimTimeout        see {@link #open(Path, int, Duration, Duration)}.
     * @param blockedClaimTimeout see {@link #open(Path, int, Duration, Duration)}.
     * @param fileMode            the ring file's permissions, set exactly whatever the umask (owner read and write, no
     *                            execute); its {@code .lock} gets read and write for the classes that may write and
     *                            nothing for the others. An existing ring keeps its mode.
     * @return the mapped ring.
     */
    public static RingBuffer open(final Path path, final int capacity, final Duration claimTimeout,
                                  final Duration blockedClaimTimeout, final Set<PosixFilePermission> fileMode) {
        return open(path, capacity, claimTimeout, blockedClaimTimeout, fileMode, SystemEpochClock.INSTANCE,
                SystemNanoClock.INSTANCE);
    }

    /**
     * Opens the ring at {@code path}, creating it and its lock file with the given permissions if absent, stamping
     * each claim with {@code epochClock}'s time and measuring timeouts with {@code nanoClock}. A drainer puts a record
     * in the cycle of its claim's time, so give a ring in front of a queue that queue's clocks (an {@link AsyncQueue}
     * does): its records then land in the cycles direct appends at the same times would.
     *
     * @param path                the ring's file, e.g. under {@code /dev/shm}.
     * @param capacity            a power of two from 4 KiB to 1 GiB; an existing ring must have it.
     * @param claimTimeout        see {@link #open(Path, int, Duration, Duration)}.
     * @param blockedClaimTimeout see {@link #open(Path, int, Duration, Duration)}.
     * @param fileMode            see {@link #open(Path, int, Duration, Duration, Set)}.
     * @param epochClock          the clock of each claim's time and of the ring's creation, in epoch milliseconds.
     * @param nanoClock           the clock of the claim timeouts, and of the waits of the ring's appenders.
     * @return the mapped ring.
     */
    public static RingBuffer open(final Path path, final int capacity, final Duration claimTimeout,
                                  final Duration blockedClaimTimeout, final Set<PosixFilePermission> fileMode,
                                  final EpochClock epochClock, final NanoClock nanoClock) {
        if (epochClock == null || nanoClock == null) {
            throw new SpoolException("clocks of ring " + path + " must not be null: epochClock=" + epochClock
                    + ", nanoClock=" + nanoClock);
        }
        final Set<PosixFilePermission> mode = FileModes.checkFileMode("ringFileMode", fileMode);
        RingFile.checkCapacity(path, capacity);
        if (claimTimeout.isNegative() || claimTimeout.isZero()) {
            throw new SpoolException("claimTimeout=" + claimTimeout + " must be positive");
        }
        if (blockedClaimTimeout.isNegative() || blockedClaimTimeout.isZero()) {
            throw new SpoolException("blockedClaimTimeout=" + blockedClaimTimeout + " must be positive");
        }
        final RingFile file = RingFile.open(path, capacity, mode, epochClock);
        final RingBuffer ring;
        try {
            ring = new RingBuffer(file, capacity, claimTimeout, blockedClaimTimeout, epochClock, nanoClock);
        } catch (RuntimeException e) {
            file.close();
            throw e;
        }
        try {
            // with this process's slot held, no deletion can start: one that ran since the mapping shows now
            file.checkLinked();
        } catch (RuntimeException e) {
            ring.close();
            throw e;
        }
        return ring;
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
        guard.checkOpen();
        if (length < 0 || length > maxPayloadLength) {
            throw new SpoolException("length=" + length + " outside [0, " + maxPayloadLength + "] for ring " + path);
        }
        final int recordLength = length + RecordDescriptor.HEADER_LENGTH;
        // read before the claim, not between its header swap and its commit: a reader polling the header waits less
        final long claimTime = epochClock.time();
        long position;
        do {
            position = reserve(recordLength);
        } while (position >= 0 && !publish(position, recordLength, claimTime));
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
        final RingHeader header = this.header;
        long free = header.readVolatileFreePosition();
        long tail;
        int padding;
        do {
            tail = header.readVolatileTail();
            final int toEnd = capacity - (int) (tail & mask);
            padding = required > toEnd ? toEnd : 0;
            if (required + padding > capacity - (tail - free)) {
                // the free position read first may be stale: only a fresh one proves the ring full
                free = header.readVolatileFreePosition();
                if (required + padding > capacity - (tail - free)) {
                    return INSUFFICIENT_CAPACITY;
                }
            }
        } while (!header.compareAndSetTail(tail, tail + required + padding));
        long position = tail;
        if (padding != 0) {
            // fails only if the consumer is unblocking this space (or has released it): then it pads the record's
            // header too unless the header swap below wins, and either outcome leaves the ring consistent
            MEMORY.compareAndSwapLong(dataAddress + (position & mask), unclaimedWord(lap(position)),
                    headerWord(padding, TYPE_PADDING, owner));
            position += padding;
        }
        final long occupancy = position + required - free;
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
    private boolean publish(final long position, final int recordLength, final long claimTime) {
        final long recordAddress = dataAddress + (position & mask);
        if (!MEMORY.compareAndSwapLong(recordAddress, unclaimedWord(lap(position)), headerWord(-recordLength, TYPE_DATA, owner))) {
            return false;
        }
        MEMORY.writeLong(recordAddress + TIMESTAMP_OFFSET, claimTime);
        return true;
    }

    /** Test hook: the first step of {@link #tryClaim(int)} alone, as a producer that stalls or dies after it. */
    long claimWithoutHeader(final int length) {
        return reserve(length + RecordDescriptor.HEADER_LENGTH);
    }

    /** Test hook: the second step of {@link #tryClaim(int)}, for a claim of {@link #claimWithoutHeader(int)}. */
    boolean publishHeader(final long position, final int length) {
        return publish(position, length + RecordDescriptor.HEADER_LENGTH, epochClock.time());
    }

    /** @return the lap of {@code position}: how many times the producers have wrapped the data region before it. */
    private long lap(final long position) {
        return position >>> capacityShift;
    }

    private void raiseHighWaterMark(final long occupancy) {
        long mark;
        while ((mark = header.readVolatileHighWaterMark()) < occupancy) {
            if (header.compareAndSetHighWaterMark(mark, occupancy)) {
                mark = occupancy;
                break;
            }
        }
        highWaterCache = mark;
    }

    /**
     * @return the mapped memory of the whole ring file; write a claim's payload at {@link #payloadOffset(long)},
     * up to the claimed length. Byte order: the payload's bytes are as the writer gave them; the multi-byte accessors of this {@code BytesStore} ({@code readLong}, {@code writeInt}...) use the native byte order, little-endian on x86-64 and AArch64.
     * The store is the mapping itself: use it between a claim and its commit, never after {@link #close()}, which
     * unmaps it.
     * @throws SpoolException once the ring is closed.
     */
    public BytesStore<?, ?> buffer() {
        guard.checkOpen();
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
        guard.checkOpen();
        final long recordAddress = dataAddress + (position & mask);
        final long claimed = MEMORY.readVolatileLong(recordAddress);
        if (!isClaimOf(claimed, position)) {
            return false;
        }
        return MEMORY.compareAndSwapLong(recordAddress, claimed, headerWord(-length(claimed), TYPE_DATA, owner));
    }

    /**
     * {@link #commit(long)} of a claim whose payload length the caller knows: one compare-and-swap from the claim's
     * header word as this instance published it, with no load of the word first, which would fetch its line for
     * reading and then again for writing when a reader polls it. Only a claim that is no longer in progress fails
     * the swap, and {@link #commit(long)} then says why.
     *
     * @param position the claim's position.
     * @param length   the payload length it was claimed with.
     * @return true if committed; false if the claim had been revoked.
     */
    boolean commit(final long position, final int length) {
        guard.checkOpen();
        final int recordLength = length + RecordDescriptor.HEADER_LENGTH;
        if (MEMORY.compareAndSwapLong(dataAddress + (position & mask), headerWord(-recordLength, TYPE_DATA, owner),
                headerWord(recordLength, TYPE_DATA, owner))) {
            return true;
        }
        return commit(position);
    }

    /**
     * Turns a claim into padding that the reader skips.
     *
     * @param position the claim's position.
     * @return false if the claim had been revoked already.
     */
    public boolean abort(final long position) {
        guard.checkOpen();
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
        throw new SpoolException(String.format("no open claim at position=%d in %s: header=0x%016x", position, path,
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
        guard.checkOpen();
        return consumer.read(handler, limit);
    }

    /** @return the capacity of the data region in bytes. */
    public int capacity() {
        return capacity;
    }

    /** @return the longest payload a claim may have: an eighth of the capacity, less a record header. */
    public int maxPayloadLength() {
        return maxPayloadLength;
    }

    /**
     * @return the position of the next claim: every byte ever claimed.
     * @throws SpoolException once the ring is closed.
     */
    public long tailPosition() {
        guard.enter();
        try {
            return header.readVolatileTail();
        } finally {
            guard.exit();
        }
    }

    /**
     * @return the position of the oldest byte not yet consumed.
     * @throws SpoolException once the ring is closed.
     */
    public long headPosition() {
        guard.enter();
        try {
            return header.readVolatileHead();
        } finally {
            guard.exit();
        }
    }

    /** {@link #tailPosition()} without the guard, for this package's producers and consumers, closed before the ring. */
    long tail() {
        return header.readVolatileTail();
    }

    /** {@link #headPosition()} without the guard, for this package's producers and consumers, closed before the ring. */
    long head() {
        return header.readVolatileHead();
    }

    /** @return the position below which producers may claim the space again. */
    long freePosition() {
        return header.readVolatileFreePosition();
    }

    /** @return the position below which ring bytes may be overwritten: a ring reader stops trusting them. */
    long releaseLimit() {
        return header.readVolatileReleaseLimit();
    }

    /**
     * @return true if everything claimed has been consumed.
     * @throws SpoolException once the ring is closed.
     */
    public boolean isEmpty() {
        guard.enter();
        try {
            return header.readVolatileHead() == header.readVolatileTail();
        } finally {
            guard.exit();
        }
    }

    /** @return the ring's counters, read live from the shared file; each read throws a SpoolException once closed. */
    public RingStats stats() {
        return stats;
    }

    /** @return the ring file. */
    public Path path() {
        return path;
    }

    /** @return the clock of claim times, in epoch milliseconds. */
    EpochClock epochClock() {
        return epochClock;
    }

    /** @return the clock of timeouts and waits. */
    NanoClock nanoClock() {
        return nanoClock;
    }

    /** @return the claim timeout this instance revokes claims of live producers after. */
    public Duration claimTimeout() {
        return claimTimeout;
    }

    /** @return how long this instance waits at a claim whose header was never written before it unblocks it. */
    public Duration blockedClaimTimeout() {
        return blockedClaimTimeout;
    }

    /**
     * Unmaps the ring and frees this instance's producer slot. Claims still open become revocable at once.
     * The file stays, with everything not yet consumed, for the next open; {@link AsyncQueue#deleteRing(Path)}
     * removes it and its lock file once it is empty and no process has it open. Refuses new reads of the views first and
     * waits for those in progress on other threads to finish, then unmaps.
     */
    @Override
    public void close() {
        if (!guard.close()) {
            return;
        }
        file.locks().free(slot);
        file.close();
    }

    /** @return true once {@link #close()} has begun. */
    public boolean isClosed() {
        return guard.isClosed();
    }

    /** @return the guard that the views ({@link RingStats}, the head, the tail) read the ring through. */
    MappingGuard guard() {
        return guard;
    }

    @Override
    public String toString() {
        return "RingBuffer{" + path + ", capacity=" + capacity + "}";
    }

    /** @return where the mapped ring file starts, for a flyweight over its header. */
    long address() {
        return address;
    }

    /** @return the claim time of the committed record at {@code position}, a plain load. */
    long claimTime(final long position) {
        return store.readLong(RingBufferDescriptor.HEADER_LENGTH + (position & mask) + TIMESTAMP_OFFSET);
    }

    MappedBytesStore store() {
        return store;
    }

    RingLocks locks() {
        return file.locks();
    }

    RingHeader header() {
        return header;
    }

    /** @return the drain state, for the drainer and the stats; a ring reader wraps its own. */
    DrainState drainState() {
        return drainState;
    }

    /** @return the read side, for the ring's one consumer. */
    RingConsumer consumer() {
        return consumer;
    }

    IndexJournal journal() {
        return journal;
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

    /** Counts a claim that found the ring full. */
    void countBackPressure() {
        header.addVolatileBackPressureEvent();
    }
}
