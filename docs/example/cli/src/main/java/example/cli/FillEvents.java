package example.cli;

import dev.spool.queue.typed.Events;
import dev.spool.queue.typed.MethodId;

/** Executions, as calls; the CLI prints each excerpt as the call, with the parameters' names and values. */
@Events(id = 2)
public interface FillEvents {
    /**
     * An order was filled, in part or in full.
     *
     * @param orderId  the order.
     * @param quantity how much was filled.
     * @param price    at what price.
     */
    @MethodId(1)
    void fill(long orderId, long quantity, double price);
}
