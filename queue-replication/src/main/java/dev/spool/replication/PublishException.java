package dev.spool.replication;

import dev.spool.queue.SpoolException;

/**
 * A {@link PublishClient} call failed; says what became of the message. {@link #sequence()} is 0 if the message got
 * no sequence: it was never sent, and publishing it again is safe. Otherwise the message got that sequence and may
 * have reached the gateway: it is in doubt ({@link #inDoubt()}), and a caller who must not duplicate it checks the
 * queue for it (the client's id, its {@link PublishClient#epoch() epoch} and that sequence are stored with it on a
 * queue with publisher ids) before publishing it again. {@link #errorCode()} names the gateway's refusal, if it was
 * one: {@code ERROR_WRITER_FENCED} (a later instance of the client id took over: the client publishes no more),
 * {@code ERROR_IN_DOUBT} (a re-send whose original the gateway no longer knows), {@code ERROR_SEQUENCE} (a sequence
 * out of order or a re-send of other bytes), the constants of the protocol's {@code FrameDescriptor}.
 */
public final class PublishException extends SpoolException {
    private static final long serialVersionUID = 1L;
    /** The message's sequence, or 0 if it got none. */
    private final long sequence;
    /** The gateway's error code, or 0. */
    private final int errorCode;

    /**
     * @param message   what went wrong, where, and what became of the message.
     * @param sequence  the message's sequence, or 0 if it got none.
     * @param errorCode the gateway's error code, or 0 if the gateway did not refuse it.
     * @param cause     the underlying failure, or null.
     */
    public PublishException(final String message, final long sequence, final int errorCode, final Throwable cause) {
        super(message, cause);
        this.sequence = sequence;
        this.errorCode = errorCode;
    }

    /** @return the message's sequence, or 0 if it got none and was never sent. */
    public long sequence() {
        return sequence;
    }

    /** @return true if the message got a sequence and may be in the queue: check before publishing it again. */
    public boolean inDoubt() {
        return sequence != 0;
    }

    /** @return the code of the gateway's ERROR, or 0 if the gateway did not refuse the call. */
    public int errorCode() {
        return errorCode;
    }
}
