package dev.spool.queue.engine;

/** Tells an appender which cycle it is now. */
interface CycleSource {
    /** @return the current cycle. */
    long currentCycle();
}
