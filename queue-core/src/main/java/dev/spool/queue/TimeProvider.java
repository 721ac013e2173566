package dev.spool.queue;

/**
 * The clock that decides which cycle an append goes to. Inject one in tests to roll cycles on demand.
 */
@FunctionalInterface
public interface TimeProvider {
    /** The system wall clock. */
    TimeProvider SYSTEM = System::currentTimeMillis;

    /** @return the current time in milliseconds since 1970-01-01T00:00Z. */
    long currentTimeMillis();
}
