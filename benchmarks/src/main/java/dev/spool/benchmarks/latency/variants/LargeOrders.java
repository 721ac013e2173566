package dev.spool.benchmarks.latency.variants;

import dev.spool.queue.ExcerptPredicate;
import net.openhft.chronicle.bytes.Bytes;

/**
 * E3b's simulated business risk: the sender marks one message in {@value #EVERY} as a large order, in a flag byte
 * after the start time, and the content-based policies sync after those only. One per variant instance, used by
 * JLBH's thread alone.
 */
final class LargeOrders {
    /** One message in this many is a large order: ten a second at E3b's 50K msg/s. */
    static final int EVERY = 5_000;
    /** Offset of the flag byte in the message, after the start time. */
    static final int FLAG_OFFSET = Long.BYTES;
    /** Spool's content-based sync predicate; non-capturing, so the policy check allocates nothing. */
    static final ExcerptPredicate IS_LARGE = (bytes, offset, length) -> bytes.readByte(offset + FLAG_OFFSET) != 0;

    private int untilNext = EVERY;

    /**
     * @param variant the variant's name, for the message.
     * @param length  the messages' length.
     * @throws IllegalArgumentException if a message has no room for the flag.
     */
    static void checkRoom(final String variant, final int length) {
        if (length <= FLAG_OFFSET) {
            throw new IllegalArgumentException(variant + " needs messages of more than " + FLAG_OFFSET + " bytes, was "
                    + length);
        }
    }

    /**
     * Flags the next message or clears its flag.
     *
     * @param message the message about to be sent.
     * @return true if it is a large order.
     */
    boolean markNext(final Bytes<?> message) {
        final boolean large = --untilNext == 0;
        if (large) {
            untilNext = EVERY;
        }
        message.writeByte(FLAG_OFFSET, (byte) (large ? 1 : 0));
        return large;
    }
}
