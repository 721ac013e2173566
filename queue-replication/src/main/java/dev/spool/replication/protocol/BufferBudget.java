package dev.spool.replication.protocol;

/**
 * The most bytes of connection buffers a server holds at once, across all its connections: each
 * {@link Connection} built with it reserves its buffers' capacities before it allocates them and returns them
 * when it closes, so a flood of connections, or of large frames, cannot exhaust the process's direct memory. One
 * thread (the server's).
 */
public final class BufferBudget {
    private final long limit;
    private long reserved;

    /** @param limit the most bytes of buffers at once. */
    public BufferBudget(final long limit) {
        this.limit = limit;
    }

    /**
     * @param length bytes wanted.
     * @return true if they were reserved; false, and nothing reserved, if they would pass the limit.
     */
    public boolean reserve(final long length) {
        if (reserved + length > limit) {
            return false;
        }
        reserved += length;
        return true;
    }

    /** @param length bytes reserved before, now freed. */
    public void release(final long length) {
        reserved -= length;
    }

    /** @return bytes reserved now. */
    public long reserved() {
        return reserved;
    }

    /** @return the most bytes of buffers at once. */
    public long limit() {
        return limit;
    }

    /** A buffer would take its server past its budget: the connection that needs it is dropped. */
    public static final class ExhaustedException extends java.io.IOException {
        private static final long serialVersionUID = 1L;

        ExhaustedException(final String message) {
            super(message);
        }
    }
}
