package dev.spool.benchmarks.support;

/** The side of an {@link Order}. */
public enum Side {
    /** A bid. */
    BUY,
    /** An offer. */
    SELL
}
