package dev.spool.queue.internal;

import dev.spool.queue.SpoolException;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Not API: keeps memory mapped while a thread reads it through a view that any thread may call at any time (a
 * queue's or a ring's getters, metrics, MXBeans), and refuses such reads once the owner closes. The view enters,
 * reads, and exits; the owner's close closes the guard, which refuses new entries and waits until no reader is
 * inside, and only then unmaps. A closed flag alone would not do: a reader that found it clear may still be reading
 * when the memory is unmapped, and a read of unmapped memory kills the JVM.
 * <pre>{@code
 * guard.enter();
 * try {
 *     return readVolatileLong(address + OFFSET);
 * } finally {
 *     guard.exit();
 * }
 * }</pre>
 * One word holds a closed bit and the number of readers inside. Allocation-free; an entry costs two atomic adds on
 * that word, so it guards views, not the hot path: appenders, tailers and drainers belong to one thread and are
 * closed before the memory they use, and check {@link #isClosed()}, a flag of its own that readers never write, so
 * that a metrics thread's entries do not take its cache line from them.
 */
public final class MappingGuard {
    /** The sign bit: set once closed, so that a negative word means closed; the bits below count the readers. */
    private static final long CLOSED = Long.MIN_VALUE;

    private final AtomicLong word = new AtomicLong();
    private final String what;
    private volatile boolean closed;

    /** @param what what the memory belongs to, for the message of a refused read: {@code "queue /data/orders"}. */
    public MappingGuard(final String what) {
        this.what = what;
    }

    /**
     * Lets the calling thread read the memory until its {@link #exit()}.
     *
     * @throws SpoolException saying {@code what} is closed, once {@link #close()} has begun; no exit is due then.
     */
    public void enter() {
        if (word.getAndIncrement() < 0) {
            word.getAndDecrement();
            throw new SpoolException(what + " is closed");
        }
    }

    /**
     * For a caller about to change something that outlives the mapping, such as a file beside it.
     *
     * @throws SpoolException saying {@code what} is closed, once {@link #close()} has begun.
     */
    public void checkOpen() {
        if (isClosed()) {
            throw new SpoolException(what + " is closed");
        }
    }

    /** Ends a read that {@link #enter()} began. */
    public void exit() {
        word.getAndDecrement();
    }

    /**
     * Refuses every later {@link #enter()} and waits, yielding, until every reader inside has exited: the memory may
     * then be unmapped. Readers are inside for a few loads, so the wait is short. Call it without holding a lock
     * that a reader inside may be waiting for.
     *
     * @return true if this call closed the guard, false if it was closed already.
     */
    public boolean close() {
        closed = true;
        final long before = word.getAndAccumulate(CLOSED, (current, closed) -> current | closed);
        while ((word.get() & ~CLOSED) != 0) {
            Thread.yield();
        }
        return before >= 0;
    }

    /** @return true once {@link #close()} has begun; a volatile read of a flag only close writes, for the hot path. */
    public boolean isClosed() {
        return closed;
    }
}
