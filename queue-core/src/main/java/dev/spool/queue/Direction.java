package dev.spool.queue;

/** Which way a tailer moves after each read. */
public enum Direction {
    /** Towards newer excerpts: the default. */
    FORWARD,
    /** Towards older excerpts. */
    BACKWARD
}
