package dev.spool.queue.typed;

import net.openhft.chronicle.bytes.Bytes;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Records each call as text, and keeps the instances it was passed to check their reuse. */
final class Recorder implements OrderEvents {
    final List<String> calls = new ArrayList<>();
    final List<Object> instances = new ArrayList<>();

    @Override
    public void newOrder(final NewOrder order) {
        instances.add(order);
        calls.add("newOrder " + order.id + " " + order.instrument + " " + order.side + " " + order.price + " "
                + order.quantity + " " + order.account.name + "/" + order.account.region);
    }

    @Override
    public void cancel(final long orderId, final CancelReason why) {
        calls.add("cancel " + orderId + " " + why);
    }

    @Override
    public void note(final CharSequence text, final CharSequence tag) {
        instances.add(text);
        calls.add("note " + text + " [" + tag + "]");
    }

    @Override
    public void blob(final Bytes<?> data, final byte[] key) {
        calls.add("blob " + data.readRemaining() + " bytes 0x" + Integer.toHexString(data.readInt(data.readPosition()))
                + " key=" + Arrays.toString(key));
    }

    @Override
    public void quote(final Price bid, final Price ask) {
        calls.add("quote " + bid.mantissa + "e" + bid.exponent + " " + ask.mantissa + "e" + ask.exponent);
    }

    @Override
    public void primitives(final boolean b, final byte y, final short s, final char c, final int i, final long l,
                           final float f, final double d) {
        calls.add("primitives " + b + " " + y + " " + s + " " + c + " " + i + " " + l + " " + f + " " + d);
    }
}
