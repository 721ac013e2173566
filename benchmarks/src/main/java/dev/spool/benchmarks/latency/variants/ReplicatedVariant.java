package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.Replicas;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.ReplicationSink;
import dev.spool.replication.ReplicationSource;
import net.openhft.chronicle.bytes.Bytes;

import java.nio.file.Path;

/**
 * E2: replication end to end. JLBH's thread appends to a primary queue; a {@link ReplicationSource} in the same
 * JVM tails it and ships it over loopback TCP to a {@link ReplicationSink}, which writes the copy at the same
 * index; the reader busy-spins on a tailer of the copy. Timed: append, source read, socket write, sink read and
 * write, read of the copy.
 * <p>
 * With a batch size above 1 the publisher appends that many messages back to back per JLBH iteration, each
 * carrying the batch's due time, and the reader samples once per batch, when it reads the batch's last message:
 * each sample is the latency of the whole batch, what its slowest message saw (see
 * {@link LatencyVariant#messagesPerSend()}).
 */
final class ReplicatedVariant implements LatencyVariant {
    private final StartTimeReader startTimeReader = new StartTimeReader();
    private final int batchSize;
    private final boolean invoked;
    /** No shared secret: the same run without the handshake's and each frame's MACs, to price them. */
    private boolean insecure;
    /** Messages of the current batch read so far; the reader thread's. */
    private int readInBatch;
    private SpoolQueue primary;
    private ExcerptAppender appender;
    private ReplicationSink sink;
    private ReplicationSource source;
    private SpoolQueue replica;
    private ExcerptTailer tailer;
    private Bytes<?> message;
    private Path replicaDirectory;

    /** @param batchSize messages appended back to back per JLBH iteration, at least 1. */
    ReplicatedVariant(final int batchSize) {
        this(batchSize, false);
    }

    /**
     * @param batchSize messages appended back to back per JLBH iteration, at least 1.
     * @param invoked   true: the reader's thread streams for the source ({@link ReplicationSource#doWork()}) when
     *                  the replica has nothing to read, instead of the source's own thread.
     */
    ReplicatedVariant(final int batchSize, final boolean invoked) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("batch size must be at least 1, was " + batchSize);
        }
        this.batchSize = batchSize;
        this.invoked = invoked;
    }

    /** @return replication of single messages, streamed by the reader's thread. */
    static ReplicatedVariant invoked() {
        return new ReplicatedVariant(1, true);
    }

    /** @return replication of single messages by the source's thread with {@code insecure()} sink and source. */
    static ReplicatedVariant insecure() {
        final ReplicatedVariant variant = new ReplicatedVariant(1, false);
        variant.insecure = true;
        return variant;
    }

    /**
     * @param base      the name of the variant's batch of 1.
     * @param batchSize messages per batch.
     * @return {@code base} for a batch of 1, {@code base-b<size>} for others.
     */
    static String batchName(final String base, final int batchSize) {
        return batchSize == 1 ? base : base + "-b" + batchSize;
    }

    @Override
    public String name() {
        if (insecure) {
            return "spool-replicated-insecure";
        }
        return batchName(invoked ? "spool-replicated-invoked" : "spool-replicated", batchSize);
    }

    @Override
    public String description() {
        return "Spool queue replicated over loopback TCP (" + (invoked
                ? "the reader's thread streams for the source, calling doWork when the replica has nothing new; the"
                + " sink thread sleeps in select" : "source and sink threads sleep in select; the append wakes the source") + "),"
                + " read from the replica" + (insecure ? "; insecure(): no MAC on the frames (the others carry one)" : "")
                + (batchSize == 1 ? "" : "; batches of " + batchSize + " appended back to"
                + " back with the batch's due time, one sample per batch when its last message is read");
    }

    @Override
    public int messagesPerSend() {
        return batchSize;
    }

    @Override
    public void init(final Path directory, final int length) {
        primary = Payloads.spoolQueue(directory.resolve("primary")).openOrCreate();
        appender = primary.createAppender();
        replicaDirectory = directory.resolve("replica");
        final ReplicationSink.Builder sinkBuilder = ReplicationSink.builder(replicaDirectory)
                .queueSettings(b -> b.chunkLength(Payloads.CHUNK_LENGTH));
        sink = (insecure ? sinkBuilder.insecure() : sinkBuilder.sharedSecret(Replicas.SECRET)).start();
        final ReplicationSource.Builder builder = ReplicationSource.builder(primary, sink.address());
        if (insecure) {
            builder.insecure();
        } else {
            builder.sharedSecret(Replicas.SECRET);
        }
        if (invoked) {
            builder.invoked();
        }
        source = builder.start();
        Replicas.awaitConnected(sink, source);
        message = Payloads.directMessage(length);
    }

    @Override
    public void openReader() {
        replica = SpoolQueue.builder(replicaDirectory).openOrCreate();
        tailer = replica.createTailer();
    }

    @Override
    public void send(final long startTimeNs) {
        Payloads.appendBatch(appender, message, startTimeNs, batchSize);
    }

    @Override
    public long receive() {
        if (!tailer.read(startTimeReader)) {
            if (invoked) {
                // the reader's idle passes stream for the source: a pass costs a socket read
                source.doWork();
            }
            return NOTHING;
        }
        if (++readInBatch < batchSize) {
            return NOTHING;
        }
        readInBatch = 0;
        return startTimeReader.startTimeNs();
    }

    @Override
    public void closeReader() {
        tailer.close();
        replica.close();
    }

    @Override
    public void close() {
        source.close();
        sink.close();
        appender.close();
        primary.close();
        message.releaseLast();
    }
}
