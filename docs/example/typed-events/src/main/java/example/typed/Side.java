package example.typed;

/** Which way an order trades. Enums are written as their ordinal: add constants at the end only. */
public enum Side {
    /** A bid. */
    BUY,
    /** An offer. */
    SELL
}
