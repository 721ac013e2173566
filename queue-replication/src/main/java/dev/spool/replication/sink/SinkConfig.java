package dev.spool.replication.sink;

import dev.spool.queue.SpoolQueueBuilder;
import org.agrona.ErrorHandler;
import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadFactory;
import java.util.function.Consumer;

/**
 * The settings of a replication sink, validated and with every default resolved by
 * {@code ReplicationSink.Builder.start()}: the only thing the sink reads. Immutable. Public only for
 * {@code dev.spool.replication}, whose builder makes it; not API.
 *
 * @param directory         the replica queue's directory.
 * @param queueSettings     the local settings of the replica queue, applied when it is opened or created.
 * @param bindAddress       the address listened on.
 * @param port              the port listened on; 0 for any free one.
 * @param maxFrameLength    the largest frame accepted from a source.
 * @param heartbeatInterval how long the sink stays silent before it sends a heartbeat.
 * @param ackSynced         true if the sink acknowledges only what it synced.
 * @param registerMBean     true if the sink registers its MXBean.
 * @param secret            the shared secret, or null when {@code insecure}; not to be changed.
 * @param insecure          true if the sink runs without a shared secret.
 * @param invoked           true if the application runs the sink's passes.
 * @param idleStrategy      the idle strategy of the sink's own thread; null for the default, which sleeps in the
 *                          sink's selector.
 * @param epochClock        the wall clock, in milliseconds since the epoch.
 * @param nanoClock         the clock of every deadline, heartbeat and liveness check of the sink.
 * @param errorHandler      given each error a pass lets out, after the agent host counted and logged it; null
 *                          for none.
 * @param threadFactory     makes the sink's own thread: daemon threads by default.
 */
public record SinkConfig(Path directory, Consumer<SpoolQueueBuilder> queueSettings, InetAddress bindAddress,
                         int port, int maxFrameLength, Duration heartbeatInterval, boolean ackSynced,
                         boolean registerMBean, byte[] secret, boolean insecure, boolean invoked,
                         IdleStrategy idleStrategy, EpochClock epochClock, NanoClock nanoClock,
                         ErrorHandler errorHandler, ThreadFactory threadFactory) {
    /** Name of the loggers of the sink's internals: the API's class, as users configure it. */
    public static final String LOGGER = "dev.spool.replication.ReplicationSink";

    /** Checks what the builder cannot get wrong, and copies what could change under it. */
    public SinkConfig {
        Objects.requireNonNull(directory, "directory");
        Objects.requireNonNull(queueSettings, "queueSettings");
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(heartbeatInterval, "heartbeatInterval");
        Objects.requireNonNull(epochClock, "epochClock");
        Objects.requireNonNull(nanoClock, "nanoClock");
        secret = secret == null ? null : secret.clone();
    }

    /** @return {@link #heartbeatInterval()} in nanoseconds. */
    public long heartbeatNs() {
        return heartbeatInterval.toNanos();
    }
}
