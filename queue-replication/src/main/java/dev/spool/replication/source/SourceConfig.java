package dev.spool.replication.source;

import dev.spool.queue.SpoolQueue;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.function.Function;

/**
 * The settings of a replication source, validated and with every default resolved by
 * {@code ReplicationSource.Builder.start()}: the only thing the source's internals read. Immutable. Public only for
 * {@code dev.spool.replication}, whose builder makes it; not API.
 *
 * @param queue             the primary queue replicated.
 * @param sinks             the sinks' addresses, replica 0 first; an unmodifiable list.
 * @param ackQuorum         k, resolved: 1 to the number of sinks.
 * @param frameLimit        the most bytes a DATA frame holds, headers included.
 * @param heartbeatInterval how long the source stays silent before it sends a heartbeat.
 * @param minBackoff        the wait before the first retry of a failed or lost connection.
 * @param maxBackoff        the longest wait between retries.
 * @param maxSleep          the longest the default idle strategy sleeps in the selector.
 * @param secret            the shared secret, or null when {@code insecure}; not to be changed.
 * @param insecure          true if the source runs without a shared secret.
 * @param invoked           true if the application runs the source's passes.
 * @param idleStrategy      the idle strategy of the source's own thread; null for the default, which sleeps in the
 *                          source's selector.
 * @param registerMBean     true if the source registers its MXBean.
 * @param epochClock        the wall clock, in milliseconds since the epoch.
 * @param nanoClock         the clock of every deadline, back-off and heartbeat of the source.
 * @param errorHandler      given each error a pass lets out, after the agent host counted and logged it: the
 *                          queue's by default.
 * @param threadFactory     makes the source's own thread, which the host names {@code spool-replication-source}:
 *                          the queue's by default.
 * @param stopError         makes the error that stops replication to a sink for good (a mismatch, a divergence,
 *                          fencing) from its message: the API's exception, which this package does not name.
 * @param retryDiverged     true to retry, at the longest back-off, a sink refused for holding excerpts the source
 *                          lacks, instead of stopping replication to it: for a coordinator that rebuilds such a
 *                          replica.
 */
public record SourceConfig(SpoolQueue queue, List<InetSocketAddress> sinks, int ackQuorum, int frameLimit,
                           Duration heartbeatInterval, Duration minBackoff, Duration maxBackoff, Duration maxSleep,
                           byte[] secret, boolean insecure, boolean invoked, IdleStrategy idleStrategy,
                           boolean registerMBean, EpochClock epochClock, NanoClock nanoClock,
                           ErrorHandler errorHandler, ThreadFactory threadFactory,
                           Function<String, RuntimeException> stopError, boolean retryDiverged) {
    /** Name of the loggers of the source's internals: the API's class, as users configure it. */
    public static final String LOGGER = "dev.spool.replication.ReplicationSource";
    /** Name of the source's thread, and its agents' role. */
    public static final String THREAD_NAME = "spool-replication-source";

    /** Checks what the builder cannot get wrong, and copies what could change under it. */
    public SourceConfig {
        Objects.requireNonNull(queue, "queue");
        sinks = List.copyOf(sinks);
        if (ackQuorum < 1 || ackQuorum > sinks.size()) {
            throw new IllegalArgumentException("ackQuorum=" + ackQuorum + " with " + sinks.size() + " sinks");
        }
        secret = secret == null ? null : secret.clone();
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        Objects.requireNonNull(minBackoff, "minBackoff");
        Objects.requireNonNull(maxBackoff, "maxBackoff");
        Objects.requireNonNull(maxSleep, "maxSleep");
        Objects.requireNonNull(epochClock, "epochClock");
        Objects.requireNonNull(nanoClock, "nanoClock");
        Objects.requireNonNull(stopError, "stopError");
    }

    /** @return {@link #heartbeatInterval()} in nanoseconds. */
    public long heartbeatNs() {
        return heartbeatInterval.toNanos();
    }
}
