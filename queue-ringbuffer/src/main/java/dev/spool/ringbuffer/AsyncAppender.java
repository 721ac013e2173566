package dev.spool.ringbuffer;

import dev.spool.queue.SpoolException;
import dev.spool.queue.internal.Crc32cOfMemory;
import dev.spool.queue.typed.TypedMessages;
import dev.spool.queue.internal.Doorbell;
import dev.spool.queue.internal.QueueInternals;
import net.openhft.chronicle.bytes.BytesStore;
import org.agrona.concurrent.BackoffIdleStrategy;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.util.concurrent.TimeUnit;

import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUM_LENGTH;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Appends to an {@link AsyncQueue}: writes the record into the ring and returns at once, without waiting for the
 * drainer. The return value is the record's ring position, not yet its queue index: the index is known once the
 * drainer has copied the record, through {@link #awaitIndex(long, long, TimeUnit)}.
 * <p>
 * When the ring is full the queue's {@link BackPressure} decides: return {@link RingBuffer#INSUFFICIENT_CAPACITY},
 * wait, or throw {@link RingFullException}. One appender belongs to one thread at a time; appenders of any thread
 * or process may share the ring. Appending allocates nothing. In front of a queue with checksums, a record carries
 * the payload's CRC32C before it, computed by {@link #commit(long)}, which the drainer copies into the queue with the
 * payload and checks there: damage to the ring between the commit and the drain is found, not copied.
 * <pre>{@code
 * long position = appender.claim(8);
 * appender.buffer().writeLong(appender.payloadOffset(position), orderId);
 * appender.commit(position);
 * }</pre>
 * A typed call of a {@link #methodWriter(Class) method writer} returns nothing; {@link #lastPositionAppended()}
 * gives its position afterwards, as it does for every committed record of this appender:
 * <pre>{@code
 * writer.newOrder(order);
 * long index = appender.awaitIndex(appender.lastPositionAppended(), 1, TimeUnit.SECONDS);
 * }</pre>
 */
public final class AsyncAppender implements AutoCloseable {
    private final AsyncQueue owner;
    private final RingBuffer ring;
    private final BackPressure.Kind kind;
    private final long timeoutNs;
    private final IdleStrategy pause;
    private final IdleStrategy indexPause = new BackoffIdleStrategy(100, 100, 1_000, 1_000_000);
    private final int maxLength;
    /** Bytes of a record's body before the payload: the CRC32C field in front of a checksummed queue, or none. */
    private final int checksumLength;
    /** Computes each payload's CRC32C at commit; null without checksums. */
    private final Crc32cOfMemory crc;
    /** Rung after each commit: one volatile read of an empty array while no tailer of this process awaits. */
    private final Doorbell.Group commits;
    /** The queue's monotonic clock, of the back-pressure and index waits: read only while waiting. */
    private final NanoClock nanoClock;
    /** The ring position of this appender's last committed record, for a caller that did not see it returned. */
    private long lastPosition = -1;
    private boolean closed;

    AsyncAppender(final AsyncQueue owner, final RingBuffer ring, final BackPressure backPressure, final int maxLength,
                  final boolean checksums) {
        this.owner = owner;
        this.ring = ring;
        this.kind = backPressure.kind();
        this.timeoutNs = backPressure.timeoutNs();
        this.pause = backPressure.newIdleStrategy();
        this.maxLength = maxLength;
        this.checksumLength = checksums ? CHECKSUM_LENGTH : 0;
        this.crc = checksums ? new Crc32cOfMemory() : null;
        this.commits = owner.commits();
        this.nanoClock = ring.nanoClock();
    }

    /**
     * @param src the payload.
     * @return the record's ring position, or {@link RingBuffer#INSUFFICIENT_CAPACITY} if the back-pressure policy
     * returns codes and the ring had no room.
     */
    public long append(final byte[] src) {
        return append(src, 0, src.length);
    }

    /**
     * @param src    holds the payload.
     * @param offset where it starts in {@code src}.
     * @param length its length.
     * @return the record's ring position, or {@link RingBuffer#INSUFFICIENT_CAPACITY} if the back-pressure policy
     * returns codes and the ring had no room.
     */
    public long append(final byte[] src, final int offset, final int length) {
        if (offset < 0 || length < 0 || offset + length > src.length) {
            throw new SpoolException("offset=" + offset + " length=" + length + " outside an array of " + src.length);
        }
        while (true) {
            final long position = claim(length);
            if (position < 0) {
                return position;
            }
            MEMORY.copyMemory(src, offset, ring.store().addressForWrite(payloadOffset(position)), length);
            if (commit(position, length)) {
                return position;
            }
        }
    }

    /**
     * Copies the payload byte for byte; see {@link #buffer()} for the byte order.
     *
     * @param src    holds the payload.
     * @param offset where it starts in {@code src}.
     * @param length its length.
     * @return the record's ring position, or {@link RingBuffer#INSUFFICIENT_CAPACITY} if the back-pressure policy
     * returns codes and the ring had no room.
     */
    public long append(final BytesStore<?, ?> src, final long offset, final int length) {
        while (true) {
            final long position = claim(length);
            if (position < 0) {
                return position;
            }
            final long payloadOffset = payloadOffset(position);
            if (src.isDirectMemory()) {
                MEMORY.copyMemory(src.addressForRead(offset), ring.store().addressForWrite(payloadOffset), (long) length);
            } else {
                ring.store().write(payloadOffset, src, offset, length);
            }
            if (commit(position, length)) {
                return position;
            }
        }
    }

    /**
     * Claims room for a payload of {@code length} bytes under the queue's back-pressure policy. Commit or abort it
     * promptly: a claim older than the claim timeout is revoked.
     *
     * @param length the payload length.
     * @return the claim's position, or {@link RingBuffer#INSUFFICIENT_CAPACITY} if the back-pressure policy returns
     * codes and the ring had no room.
     */
    public long claim(final int length) {
        checkOpen();
        if (length > maxLength) {
            throw new SpoolException("length=" + length + " exceeds " + maxLength + ", the most both ring "
                    + ring.path() + " and its queue accept");
        }
        final int bodyLength = length + checksumLength;
        long position = ring.tryClaim(bodyLength);
        if (position >= 0) {
            return position;
        }
        ring.countBackPressure();
        if (kind == BackPressure.Kind.RETURN_CODE) {
            return position;
        }
        if (kind == BackPressure.Kind.AWAIT || kind == BackPressure.Kind.AWAIT_THEN_THROW) {
            final long deadline = nanoClock.nanoTime() + timeoutNs;
            pause.reset();
            do {
                pause.idle();
                position = ring.tryClaim(bodyLength);
                if (position >= 0) {
                    return position;
                }
            } while (nanoClock.nanoTime() - deadline < 0);
            if (kind == BackPressure.Kind.AWAIT) {
                return position;
            }
        }
        throw new RingFullException("ring " + ring.path() + " has no room for a record of " + length + " bytes: occupancy="
                + ring.stats().occupancy() + " of capacity=" + ring.capacity() + ", back-pressure " + kind.name().toLowerCase(java.util.Locale.ROOT)
                + (timeoutNs > 0 ? " after " + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms" : ""));
    }

    /**
     * Returns a writer of typed messages whose every call writes one record into the ring (drained into the queue
     * like any other), allocating nothing; see {@link dev.spool.queue.ExcerptAppender#methodWriter(Class)}. Where
     * the back-pressure policy would return {@link RingBuffer#INSUFFICIENT_CAPACITY}, a call throws
     * {@link RingFullException}, since it cannot return the code. The writer belongs to this appender's thread.
     *
     * @param events an interface annotated {@link dev.spool.queue.typed.Events}.
     * @param <T>    the interface.
     * @return its generated writer over this appender.
     */
    public <T> T methodWriter(final Class<T> events) {
        checkOpen();
        return TypedMessages.writer(events, new RingSink(this),
                owner.queue().unwrap(QueueInternals.class).schemaFiles());
    }

    /**
     * @return the ring's mapped memory; write a claim's payload at {@link #payloadOffset(long)}. Byte order: the payload's bytes are as the writer gave them; the multi-byte accessors of this {@code BytesStore} ({@code readLong}, {@code writeInt}...) use the native byte order, little-endian on x86-64 and AArch64.
     * The store is the mapping itself: use it between a claim and its commit, never after the async queue closed.
     * @throws SpoolException once the appender or its async queue is closed.
     */
    public BytesStore<?, ?> buffer() {
        checkOpen();
        return ring.buffer();
    }

    /**
     * @param position a claim's position.
     * @return where its payload starts in {@link #buffer()}.
     */
    public long payloadOffset(final long position) {
        return ring.payloadOffset(position) + checksumLength;
    }

    /**
     * @param position a claim's position.
     * @return true if committed; false if the claim had been revoked for its age: claim and write again.
     */
    public boolean commit(final long position) {
        checkOpen();
        if (crc != null) {
            // the claim's header holds minus its record's length until the commit below publishes it
            writeChecksum(position, -RecordDescriptor.length(ring.headerWordAt(position)) - RecordDescriptor.HEADER_LENGTH
                    - CHECKSUM_LENGTH);
        }
        if (ring.commit(position)) {
            committed(position);
            return true;
        }
        return false;
    }

    /**
     * {@link #commit(long)} of an append, which knows the payload's length: no load of the claim's header word, and
     * no check that {@link #claim(int)} has just made.
     */
    private boolean commit(final long position, final int length) {
        if (crc != null) {
            writeChecksum(position, length);
        }
        if (ring.commit(position, length + checksumLength)) {
            committed(position);
            return true;
        }
        return false;
    }

    /** Writes the CRC32C of the claim's payload in front of it, before the commit's release publishes both. */
    private void writeChecksum(final long position, final int payloadLength) {
        final long body = ring.store().addressForWrite(ring.payloadOffset(position));
        MEMORY.writeInt(body, crc.of(body + CHECKSUM_LENGTH, payloadLength));
    }

    private void committed(final long position) {
        lastPosition = position;
        commits.ring();
    }

    /**
     * Returns the ring position of the last record this appender committed, by {@code append}, {@link #commit(long)}
     * or a call of its {@link #methodWriter(Class) method writer}, whose calls return nothing: pass it to
     * {@link #awaitIndex(long, long, TimeUnit)} for the record's queue index. A plain read of a field, allocating
     * nothing; call it from the appender's thread, after the write.
     *
     * @return the position of the last committed record, or -1 if this appender has committed none.
     */
    public long lastPositionAppended() {
        return lastPosition;
    }

    /**
     * @param position a claim's position.
     * @return false if the claim had been revoked already.
     */
    public boolean abort(final long position) {
        checkOpen();
        return ring.abort(position);
    }

    /**
     * Waits, spinning then parking, until the drainer has copied the record at {@code position} into the queue.
     *
     * @param position a committed record's ring position.
     * @param timeout  how long to wait at most.
     * @param unit     the unit of {@code timeout}.
     * @return the record's queue index, or -1 on timeout.
     * @throws InterruptedException if the thread is interrupted while waiting.
     * @throws SpoolException       if the record was drained so long ago that the ring's index journal no longer
     *                              holds it (the producers have lapped it), or once the appender or its async queue
     *                              is closed, by another thread too; or if {@code position} is negative, as
     *                              {@link #lastPositionAppended()} is before the first commit.
     */
    public long awaitIndex(final long position, final long timeout, final TimeUnit unit) throws InterruptedException {
        checkOpen();
        if (position < 0) {
            throw new SpoolException("position=" + position + " in " + ring.path() + " is no committed record's: "
                    + "this appender has committed none yet, or the append returned a back-pressure code");
        }
        final long deadline = nanoClock.nanoTime() + unit.toNanos(timeout);
        indexPause.reset();
        while (true) {
            final long index = readIndex(position);
            if (index >= 0) {
                return index;
            }
            if (index == IndexJournal.OVERWRITTEN) {
                throw new SpoolException("ring " + ring.path() + " no longer knows the queue index of position " + position
                        + ": the record was drained and its journal entry reused; ask sooner, or read the queue");
            }
            if (Thread.interrupted()) {
                throw new InterruptedException("interrupted while awaiting the index of position " + position + " in " + ring.path());
            }
            if (nanoClock.nanoTime() - deadline >= 0) {
                return -1;
            }
            indexPause.idle();
        }
    }

    /**
     * Reads the journal through the ring's guard: the async queue may close while this waits, and its close then
     * waits for the read rather than unmapping under it.
     */
    private long readIndex(final long position) {
        ring.guard().enter();
        try {
            return ring.journal().readVolatileIndex(position);
        } finally {
            ring.guard().exit();
        }
    }

    /**
     * @throws SpoolException once this appender or its ring is closed: closing the async queue closes both, and
     *                        the ring's flag is the one another thread's close is sure to make visible.
     */
    private void checkOpen() {
        if (closed || ring.isClosed()) {
            throw new SpoolException("appender of " + ring.path() + " is closed");
        }
    }

    /** Releases the appender; claims it left open are revoked by the drainer after the claim timeout. */
    @Override
    public void close() {
        if (!closed) {
            closed = true;
            owner.closed(this);
        }
    }
}
