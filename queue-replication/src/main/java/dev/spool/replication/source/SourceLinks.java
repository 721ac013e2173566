package dev.spool.replication.source;

import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.internal.QueueRole;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.channels.Selector;
import java.util.function.Function;

/**
 * The agent of a {@link dev.spool.replication.ReplicationSource}: one {@link SourceAgent} per sink, each a state
 * machine that never
 * blocks, run in turn in every pass, so a sink that is slow, silent or away costs the others one non-blocking pass
 * and holds back neither them nor the writer. They share the source's selector (its thread sleeps there, woken by
 * any sink's frame or by an append) and its {@link ReplicaAcks}. A sink that fails for good (a mismatch, a
 * divergence, a failed authentication) stops alone; the source stops when every sink stopped, or at once when one
 * of them fenced the queue: a later primary exists, and nothing more may be sent to anyone. Allocates nothing
 * while streaming.
 */
public final class SourceLinks implements Agent {
    private static final Logger LOG = LoggerFactory.getLogger(SourceConfig.LOGGER);
    private final QueueInternals internals;
    private final String directory;
    private final SourceAgent[] links;
    private final ReplicaAcks acks;
    private final ReplicaPositions positions;
    private final Selector selector;
    /** On its own thread, a stop ends the runner; invoked, the caller reads {@link #failure()}. */
    private final boolean terminateOnStop;
    /** Makes the API's exception that stops the source for good. */
    private final Function<String, RuntimeException> stopError;
    private volatile Throwable failure;

    /**
     * @param config          the source's settings.
     * @param terminateOnStop true on the source's own thread: a stop for good ends the runner.
     * @throws IOException if the selector cannot be opened.
     */
    public SourceLinks(final SourceConfig config, final boolean terminateOnStop) throws IOException {
        this.internals = config.queue().unwrap(QueueInternals.class);
        this.directory = String.valueOf(config.queue().directory());
        this.terminateOnStop = terminateOnStop;
        this.stopError = config.stopError();
        final int n = config.sinks().size();
        this.positions = new ReplicaPositions(internals, config.sinks());
        this.acks = new ReplicaAcks(internals, positions, n, config.ackQuorum());
        try {
            this.selector = Selector.open();
            this.links = new SourceAgent[n];
            for (int i = 0; i < n; i++) {
                links[i] = new SourceAgent(config, i, acks, selector);
            }
        } catch (IOException | RuntimeException e) {
            positions.close();
            throw e;
        }
    }

    @Override
    public String roleName() {
        return SourceConfig.THREAD_NAME;
    }

    /**
     * One pass of every sink's state machine.
     *
     * @return the number of sinks that did anything.
     * @throws AgentTerminationException on its own thread, once the source stopped for good.
     */
    @Override
    public int doWork() {
        if (failure != null) {
            return 0;
        }
        int work = 0;
        int live = 0;
        for (final SourceAgent link : links) {
            work += link.doWork();
            live += link.isStopped() ? 0 : 1;
        }
        if (live == 0 || internals.role() == QueueRole.FENCED) {
            stop();
        }
        return work;
    }

    /** Closes every sink's connection and tailer, then the selector; the queue stays open. */
    @Override
    public void onClose() {
        for (final SourceAgent link : links) {
            link.onClose();
        }
        positions.close();
        try {
            selector.close();
        } catch (IOException e) {
            LOG.error("replication source of {}: cannot close its selector", directory, e);
        }
    }

    /** @return the selector the sinks' connections share: the source's thread sleeps in it. */
    public Selector selector() {
        return selector;
    }

    /** @return what each replica acknowledged. */
    public ReplicaAcks acks() {
        return acks;
    }

    /**
     * @param replica a replica's number, in the order the sinks were given.
     * @return the address of its sink.
     */
    public InetSocketAddress sink(final int replica) {
        return links[replica].sink();
    }

    /**
     * @param replica a replica's number.
     * @return false if the queue's retention, at its last run in this instance, found the replica past the lag limit.
     */
    public boolean isRetainedFor(final int replica) {
        return !internals.replicasPastLagLimit().contains(ReplicaPositions.nameOf(links[replica].sink()));
    }

    /**
     * @param replica a replica's number.
     * @return true while connected to its sink and past the handshake.
     */
    public boolean isConnected(final int replica) {
        return links[replica].isConnected();
    }

    /**
     * @param replica a replica's number.
     * @return the last index sent to it on its current or last connection, -1 if none; any thread.
     */
    public long sentIndex(final int replica) {
        return links[replica].sentIndex();
    }

    /**
     * @param replica a replica's number.
     * @return payload bytes read for it and not acknowledged on its current or last connection; any thread.
     */
    public long unackedBytes(final int replica) {
        return links[replica].unackedBytes();
    }

    /**
     * @param replica a replica's number.
     * @return the error that stopped replication to it for good, or the refusal of this source's proof of the
     * secret it keeps repeating, else null.
     */
    public Throwable failure(final int replica) {
        return links[replica].failure();
    }

    /** @return true while at least one sink is connected and past the handshake. */
    public boolean isConnected() {
        return acks.connectedCount() > 0;
    }

    /**
     * @return the error that stopped the source for good; else, while every sink still replicated to fails to
     * authenticate (so none can acknowledge), the first sink's failure; else null.
     */
    public Throwable failure() {
        final Throwable stopped = failure;
        if (stopped != null) {
            return stopped;
        }
        Throwable refused = null;
        for (final SourceAgent link : links) {
            final Throwable linkFailure = link.failure();
            if (linkFailure == null) {
                return null;
            }
            if (refused == null && link.isRefused()) {
                refused = linkFailure;
            }
        }
        return refused;
    }

    /** @return how many sinks are not stopped for good: connected, connecting or backing off. */
    public int running() {
        int live = 0;
        for (final SourceAgent link : links) {
            // the failure's volatile read first: a sink whose failure another thread sees is seen stopped too
            if (link.failure() == null || !link.isStopped()) {
                live++;
            }
        }
        return live;
    }

    /** @return how many sinks keep refusing this source's proof of the secret ({@link SourceAgent#isRefused()}). */
    public int refused() {
        int refused = 0;
        for (final SourceAgent link : links) {
            refused += link.isRefused() ? 1 : 0;
        }
        return refused;
    }

    /**
     * Every sink stopped, or the queue is fenced (by one of the sinks, which stopped with the reason, or by another
     * process): the source stops with the first sink's failure.
     */
    private void stop() {
        Throwable cause = null;
        for (int i = 0; i < links.length && cause == null; i++) {
            cause = links[i].isStopped() ? links[i].failure() : null;
        }
        if (cause == null) {
            cause = stopError.apply("queue " + directory + " is fenced: a later primary exists");
        }
        for (final SourceAgent link : links) {
            link.stopWith(cause);
        }
        failure = cause;
        if (terminateOnStop) {
            throw new AgentTerminationException(cause);
        }
    }
}
