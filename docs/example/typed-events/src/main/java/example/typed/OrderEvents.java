package example.typed;

import dev.spool.queue.typed.Events;
import dev.spool.queue.typed.MethodId;

/**
 * The order flow as calls: each call is one excerpt, the method's id and its arguments. The ids are pinned
 * ({@code @Events(id)}, {@code @MethodId}) so that the interface and its methods may be renamed or moved later
 * without making older excerpts unreadable.
 */
@Events(id = 1)
public interface OrderEvents {
    /**
     * A new order.
     *
     * @param order its fields; a reader gets the same instance for every call.
     */
    @MethodId(1)
    void newOrder(NewOrder order);

    /**
     * Cancels an order.
     *
     * @param orderId the order to cancel.
     * @param reason  why: a variable-length string, read without garbage into the reader's own buffer.
     */
    @MethodId(2)
    void cancel(long orderId, CharSequence reason);
}
