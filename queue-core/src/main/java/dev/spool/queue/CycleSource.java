package dev.spool.queue;

/** Tells an appender which cycle it is now. */
interface CycleSource {
    /** @return the current cycle. */
    long currentCycle();
}
