package dev.spool.benchmarks.support;

import dev.spool.queue.typed.Events;
import dev.spool.queue.typed.MethodId;

/**
 * The typed benchmark's and demo's events: one order of five fields per call. spool-processor generates
 * {@code OrderEventsSpoolWriter} and {@code OrderEventsSpoolReader} from it at build time.
 */
@Events(id = 1)
public interface OrderEvents {
    /**
     * A new order.
     *
     * @param order its fields; the reader passes the same instance for every call.
     */
    @MethodId(1)
    void order(Order order);
}
