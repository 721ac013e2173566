package dev.spool.replication;

import dev.spool.queue.SpoolException;

/** Stopping the threads of this module's services. */
final class Threads {
    private Threads() {
    }

    /**
     * Waits for a service's thread to end, once the service told it to stop; returns at once on the thread itself.
     *
     * @param thread the service's thread.
     * @param what   names the service in the error, e.g. "the sink of /data/replica".
     * @throws SpoolException if the caller is interrupted while it waits (its interrupt flag is set again).
     */
    static void join(final Thread thread, final String what) {
        if (thread.isAlive() && Thread.currentThread() != thread) {
            try {
                thread.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SpoolException("interrupted while stopping " + what, e);
            }
        }
    }
}
