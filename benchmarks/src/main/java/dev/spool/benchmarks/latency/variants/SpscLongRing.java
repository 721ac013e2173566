package dev.spool.benchmarks.latency.variants;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A single-producer single-consumer ring of longs in the heap, preallocated and reused: the floor E0 of the
 * experiments E1 and E3b, the cheapest way one thread can hand a timestamp to another. No file, no page fault,
 * no allocation; what is left is two cache-line transfers per message and the scheduler.
 * <p>
 * The producer's sequence ({@code head}) and the consumer's ({@code tail}) each sit on their own cache lines,
 * with the copy of the other side's sequence that each keeps to avoid reading the shared line on every call;
 * the padding is by inheritance because the JVM keeps a superclass's fields before a subclass's, and may reorder
 * fields within one class. Publication is a release store of the sequence after a plain store of the slot,
 * read with an acquire load before the slot: the Disruptor's and JCTools' protocol.
 */
final class SpscLongRing extends SpscLongRingConsumer {
    /**
     * What {@link #poll()} returns when the ring is empty; never offered, since no timestamp is that old. It is
     * {@link LatencyVariant#NOTHING}, so a variant whose reader polls a ring of start times returns the poll as is.
     */
    static final long EMPTY = LatencyVariant.NOTHING;

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;

    static {
        try {
            final MethodHandles.Lookup lookup = MethodHandles.lookup();
            HEAD = lookup.findVarHandle(SpscLongRingProducer.class, "head", long.class);
            TAIL = lookup.findVarHandle(SpscLongRingConsumerFields.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    // read by both threads, written by neither after construction: behind the consumer's trailing padding
    private final long[] slots;
    private final int mask;

    /** @param capacity slots in the ring, a power of two. */
    SpscLongRing(final int capacity) {
        if (capacity < 2 || Integer.bitCount(capacity) != 1) {
            throw new IllegalArgumentException("capacity must be a power of two >= 2, was " + capacity);
        }
        this.slots = new long[capacity];
        this.mask = capacity - 1;
    }

    /** @return slots in the ring. */
    int capacity() {
        return slots.length;
    }

    /**
     * Producer thread only.
     *
     * @param value the value to hand over; not {@link #EMPTY}.
     * @return false, changing nothing, if the ring is full.
     */
    boolean offer(final long value) {
        final long head = this.head;
        if (head - tailCache >= slots.length) {
            tailCache = (long) TAIL.getAcquire(this);
            if (head - tailCache >= slots.length) {
                return false;
            }
        }
        slots[(int) head & mask] = value;
        // release: the slot's value is visible before the consumer can see the new head
        HEAD.setRelease(this, head + 1);
        return true;
    }

    /**
     * Producer thread only: {@link #offer(long)}, spinning while the ring is full (in the variants, only during
     * JLBH's unpaced warm-up, when the sender runs ahead of the reader).
     *
     * @param value the value to hand over; not {@link #EMPTY}.
     */
    void put(final long value) {
        while (!offer(value)) {
            Thread.onSpinWait();
        }
    }

    /**
     * Consumer thread only.
     *
     * @return the oldest value, or {@link #EMPTY} if there is none.
     */
    long poll() {
        final long tail = this.tail;
        if (tail >= headCache) {
            // acquire: pairs with the producer's release, so the slots up to the head read as written
            headCache = (long) HEAD.getAcquire(this);
            if (tail >= headCache) {
                return EMPTY;
            }
        }
        final long value = slots[(int) tail & mask];
        // release: the slot is read before the producer can see it free and overwrite it
        TAIL.setRelease(this, tail + 1);
        return value;
    }
}

/** Two cache lines (128 bytes, for the adjacent-line prefetcher) between the object header and the producer's fields. */
abstract class SpscLongRingLeadingPad {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

/** The producer's side: its sequence, written by it alone, and its last look at the consumer's. */
abstract class SpscLongRingProducer extends SpscLongRingLeadingPad {
    /** Next slot to write; release-stored by the producer, acquire-loaded by the consumer. */
    long head;
    /** The consumer's tail when the producer last looked: the ring is surely not full below it. */
    long tailCache;
}

/** Keeps the producer's line apart from the consumer's. */
abstract class SpscLongRingMiddlePad extends SpscLongRingProducer {
    long p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}

/** The consumer's side: its sequence, written by it alone, and its last look at the producer's. */
abstract class SpscLongRingConsumerFields extends SpscLongRingMiddlePad {
    /** Next slot to read; release-stored by the consumer, acquire-loaded by the producer. */
    long tail;
    /** The producer's head when the consumer last looked: slots below it are surely written. */
    long headCache;
}

/** Keeps the consumer's line apart from the read-only fields of {@link SpscLongRing}. */
abstract class SpscLongRingConsumer extends SpscLongRingConsumerFields {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p2a, p2b, p2c, p2d, p2e, p2f;
}
