package dev.spool.queue.internal;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Arrays;
import java.util.Objects;

/**
 * Wakes a thread that sleeps until something happens to a queue in this process (an append, a replica's
 * acknowledgement), so it need not spin or poll on a timer.
 * <p>
 * The sleeper {@link #arm() arms} the doorbell, checks once more for what it waits for, and only then sleeps;
 * the event's thread rings it after the event is visible, and the ring runs the wake action once per arming
 * ({@code Selector::wakeup}, {@code LockSupport.unpark}). A ring costs the event's thread one volatile read while
 * the doorbell is not armed. The event is published with a release store, not a full fence, so an event and an
 * arming that cross within nanoseconds can miss each other: a sleeper must bound its sleep (a millisecond is
 * typical), and it is the only wake an event in another process gets.
 * <p>
 * {@link #close() Close} a doorbell that is no longer used: it is removed from the set that rings it.
 */
public final class Doorbell implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(Doorbell.class);
    private static final VarHandle ARMED;

    static {
        try {
            ARMED = MethodHandles.lookup().findVarHandle(Doorbell.class, "armed", boolean.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final Group owner;
    private final Runnable wake;
    @SuppressWarnings("unused") // through ARMED
    private volatile boolean armed;

    private Doorbell(final Group owner, final Runnable wake) {
        this.owner = owner;
        this.wake = wake;
    }

    /** Arms the doorbell: the next ring wakes. Check for the event after this and before sleeping. */
    public void arm() {
        armed = true;
    }

    /** Disarms it after a sleep, so the events of a busy thread do not pay for the wake action. */
    public void disarm() {
        armed = false;
    }

    /** Removes the doorbell from what rings it; it can still be armed, and never wakes. */
    @Override
    public void close() {
        owner.remove(this);
        armed = false;
    }

    private void ring() {
        if (armed && ARMED.compareAndSet(this, true, false)) {
            try {
                wake.run();
            } catch (RuntimeException e) {
                // the event it follows has happened (an append is written): its thread must not see this
                LOG.warn("a doorbell's wake action failed; its sleeper wakes at the end of its bounded sleep", e);
            }
        }
    }

    /**
     * The doorbells of one kind of event: the event's thread calls {@link #ring()} after each event. Adding and
     * removing copy the array, so a ring reads one volatile reference and allocates nothing.
     */
    public static final class Group {
        private static final Doorbell[] NONE = new Doorbell[0];
        private volatile Doorbell[] doorbells = NONE;

        /**
         * @param wake what a ring does while the doorbell is armed, on the ringing thread: short and non-blocking,
         *             such as {@code selector::wakeup} or unparking a thread.
         * @return a new doorbell of this set, disarmed.
         */
        public synchronized Doorbell add(final Runnable wake) {
            final Doorbell doorbell = new Doorbell(this, Objects.requireNonNull(wake, "wake"));
            final Doorbell[] old = doorbells;
            final Doorbell[] grown = Arrays.copyOf(old, old.length + 1);
            grown[old.length] = doorbell;
            doorbells = grown;
            return doorbell;
        }

        private synchronized void remove(final Doorbell doorbell) {
            final Doorbell[] old = doorbells;
            for (int i = 0; i < old.length; i++) {
                if (old[i] == doorbell) {
                    final Doorbell[] shrunk = new Doorbell[old.length - 1];
                    System.arraycopy(old, 0, shrunk, 0, i);
                    System.arraycopy(old, i + 1, shrunk, i, old.length - i - 1);
                    doorbells = shrunk.length == 0 ? NONE : shrunk;
                    return;
                }
            }
        }

        /** Wakes every armed doorbell of the set. */
        public void ring() {
            final Doorbell[] current = doorbells;
            for (final Doorbell doorbell : current) {
                doorbell.ring();
            }
        }
    }
}
