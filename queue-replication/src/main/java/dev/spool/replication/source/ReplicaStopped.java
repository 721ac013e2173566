package dev.spool.replication.source;

/**
 * Replication to one sink cannot go on without a person deciding (a mismatch, a divergence, fencing, said by a sink
 * that proved the secret): thrown inside the source's pass, where {@link SourceAgent} catches it and stops that sink
 * with the API's exception made from this message by {@link SourceConfig#stopError()}.
 */
final class ReplicaStopped extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final boolean diverged;

    /** @param message what does not match, with the indices and terms involved. */
    ReplicaStopped(final String message) {
        this(message, false);
    }

    /**
     * @param message  what does not match, with the indices and terms involved.
     * @param diverged true if the sink holds excerpts the source lacks.
     */
    ReplicaStopped(final String message, final boolean diverged) {
        // control flow inside one pass: the API's exception made from it carries the stack that matters
        super(message, null, false, false);
        this.diverged = diverged;
    }

    /** @return true if the sink holds excerpts the source lacks. */
    boolean diverged() {
        return diverged;
    }
}
