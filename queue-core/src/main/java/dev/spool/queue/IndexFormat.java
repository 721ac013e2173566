package dev.spool.queue;

/**
 * Prints a queue index the one way Spool prints it everywhere, in logs, exception messages, {@code dump} and
 * {@code tail}: the raw 64-bit index in hexadecimal, which {@link ExcerptTailer#moveToIndex(long)} and the tool's
 * {@code --from} take back, then the cycle and the sequence within it that the roll cycle splits it into:
 * <pre>
 * 0x501f00000011 (cycle 20511 seq 17)
 * </pre>
 * A negative index means none and prints as {@code none (-1)}; without a roll cycle (a damaged metadata file, in
 * the tools) the hex stands alone. Strings are built only where a message is made, never on a hot path.
 */
public final class IndexFormat {
    private IndexFormat() {
    }

    /**
     * @param index     a queue index, or a negative value for none.
     * @param rollCycle the queue's roll cycle, which says how many low bits hold the sequence; null if unknown.
     * @return the index as {@code 0x<hex> (cycle <cycle> seq <sequence>)}, or {@code none (<index>)}.
     */
    public static String format(final long index, final RollCycle rollCycle) {
        if (index < 0) {
            return "none (" + index + ")";
        }
        if (rollCycle == null) {
            return "0x" + Long.toHexString(index);
        }
        return "0x" + Long.toHexString(index) + " (cycle " + rollCycle.toCycle(index) + " seq "
                + rollCycle.toSequence(index) + ")";
    }
}
