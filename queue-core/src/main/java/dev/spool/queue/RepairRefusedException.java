package dev.spool.queue;

/**
 * A repair of damaged excerpts was refused, and nothing was written: the damage cannot be proven, or the replacement
 * bytes cannot be proven right (their length differs from what the queue stores, they fail their own checksum, or
 * the queue has no checksums to check them by). The message names the index range and why; {@link #fromIndex()} and
 * {@link #toIndex()} give the range.
 */
public final class RepairRefusedException extends SpoolException {
    private static final long serialVersionUID = 1L;

    /** The first index of the refused range. */
    private final long fromIndex;
    /** The last index of the refused range, inclusive. */
    private final long toIndex;

    /**
     * @param fromIndex the first index of the refused range.
     * @param toIndex   the last index of the refused range, inclusive.
     * @param message   the range, in the 0x form of {@link IndexFormat}, and why.
     */
    public RepairRefusedException(final long fromIndex, final long toIndex, final String message) {
        super(message);
        this.fromIndex = fromIndex;
        this.toIndex = toIndex;
    }

    /** @return the first index of the refused range. */
    public long fromIndex() {
        return fromIndex;
    }

    /** @return the last index of the refused range, inclusive. */
    public long toIndex() {
        return toIndex;
    }
}
