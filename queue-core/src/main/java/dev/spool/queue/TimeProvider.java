package dev.spool.queue;

/**
 * The clock that decides which cycle an append goes to. Inject one in tests to roll cycles on demand.
 */
@FunctionalInterface
public interface TimeProvider {
    /**
     * The system wall clock, read through a shared daemon thread that keeps the current cycle in a volatile field
     * and makes appenders read the clock only within 50 ms of a boundary (see the roll clock in docs/architecture.md).
     * Pass {@code System::currentTimeMillis} instead to read the clock on every append.
     */
    TimeProvider SYSTEM = System::currentTimeMillis;

    /** @return the current time in milliseconds since 1970-01-01T00:00Z. */
    long currentTimeMillis();
}
