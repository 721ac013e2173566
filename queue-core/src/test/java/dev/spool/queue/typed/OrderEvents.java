package dev.spool.queue.typed;

import net.openhft.chronicle.bytes.Bytes;

/** Every field type the typed layer encodes. */
@Events
interface OrderEvents {
    void newOrder(NewOrder order);

    void cancel(long orderId, CancelReason why);

    void note(CharSequence text, @Fixed(8) CharSequence tag);

    void blob(Bytes<?> data, @Fixed(4) byte[] key);

    void quote(Price bid, Price ask);

    @MethodId(7)
    void primitives(boolean b, byte y, short s, char c, int i, long l, float f, double d);
}
