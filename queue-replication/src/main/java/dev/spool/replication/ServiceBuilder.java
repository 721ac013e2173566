package dev.spool.replication;

import dev.spool.replication.protocol.Handshake;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.util.Objects;
import java.util.concurrent.ThreadFactory;

/**
 * What the builders of a sink, a source and a publish gateway share: the shared secret (or {@link #insecure()}),
 * the idle strategy of the service's own thread, and running invoked instead. Not API: its methods are documented
 * on each builder.
 *
 * @param <B> the builder, returned by every setter.
 */
abstract class ServiceBuilder<B extends ServiceBuilder<B>> {
    byte[] secret;
    boolean insecure;
    IdleStrategy idle;
    boolean invoked;
    /** Null: the queue's. */
    EpochClock epochClock;
    /** Null: the queue's. */
    NanoClock nanoClock;
    /** Null: the queue's (the sink's: none). */
    ErrorHandler errorHandler;
    /** Null: the queue's (the sink's: daemon threads). */
    ThreadFactory threadFactory;

    /** @return this builder, as its own type. */
    abstract B self();

    /**
     * @param secret a secret shared with the peers, at least 16 bytes (32 random bytes are best): both sides then
     *               prove they know it with an HMAC challenge-response, every later frame carries a MAC of the
     *               session, and a peer that does not prove it is dropped before anything it sent is acted on.
     *               Required, unless {@link #insecure()}.
     * @return this builder.
     */
    public B sharedSecret(final byte[] secret) {
        this.secret = Handshake.checkedSecret(secret);
        return self();
    }

    /**
     * Starts without a shared secret: whatever can reach the service, or answers at its peer's address, is trusted.
     * It can then publish into a gateway's queue; write into a sink's replica under its own queue id and fence its
     * source by claiming a later term; or take a source's stream, fence its primary or stop its replication. Only
     * for a trusted network (loopback on a single-user host, tests); the service logs a warning at start.
     *
     * @return this builder.
     */
    public B insecure() {
        this.insecure = true;
        return self();
    }

    /**
     * @param idle what the service's own thread does after a pass with nothing to do, instead of its default of
     *             sleeping in its selector until a frame, a connection or an append wakes it: e.g. Agrona's
     *             {@code BusySpinIdleStrategy} for the lowest latency, at the cost of a core. Not used invoked.
     * @return this builder.
     */
    public B idleStrategy(final IdleStrategy idle) {
        this.idle = Objects.requireNonNull(idle, "idle");
        return self();
    }

    /**
     * Runs the service on the caller's threads only: no thread is started, and the application calls its
     * {@code doWork()} in its own duty cycle (directly, through an {@code AgentInvoker}, or in a
     * {@code CompositeAgent} with its other agents). Nothing is sent, received, acknowledged or retried unless
     * someone calls it.
     *
     * @return this builder.
     */
    public B invoked() {
        return invoked(true);
    }

    /**
     * @param invoked true for {@link #invoked()}, false for running on the service's own thread (the default).
     * @return this builder.
     */
    public B invoked(final boolean invoked) {
        this.invoked = invoked;
        return self();
    }

    /**
     * @param clock the wall clock of the service, in milliseconds since the epoch; default the queue's; a sink's,
     *              whose replica may not exist before a source connects: the system's.
     * @return this builder.
     */
    public B epochClock(final EpochClock clock) {
        this.epochClock = Objects.requireNonNull(clock, "clock");
        return self();
    }

    /**
     * @param clock the clock of every deadline, back-off, heartbeat and timeout of the service; default the
     *              queue's; a sink's: the system's. A test drives one by hand to step through time.
     * @return this builder.
     */
    public B nanoClock(final NanoClock clock) {
        this.nanoClock = Objects.requireNonNull(clock, "clock");
        return self();
    }

    /**
     * @param handler given each error one of the service's passes lets out, on its own thread or invoked, after
     *                Spool's agent host counted it (its {@code AgentMXBean}) and logged it; the service goes on (the
     *                errors of a peer or a connection are handled inside the pass). Default: the queue's error
     *                handler; a sink's: none.
     * @return this builder.
     */
    public B errorHandler(final ErrorHandler handler) {
        this.errorHandler = Objects.requireNonNull(handler, "handler");
        return self();
    }

    /**
     * @param factory makes the service's own thread, which is named for the service; default: the queue's thread
     *                factory; a sink's: daemon threads. Not used invoked.
     * @return this builder.
     */
    public B threadFactory(final ThreadFactory factory) {
        this.threadFactory = Objects.requireNonNull(factory, "factory");
        return self();
    }
}
