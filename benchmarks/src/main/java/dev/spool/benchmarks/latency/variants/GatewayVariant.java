package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.Replicas;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.CommitStage;
import dev.spool.replication.PublishClient;
import dev.spool.replication.PublishGateway;
import dev.spool.replication.ReplicationSink;
import dev.spool.replication.ReplicationSource;
import org.agrona.concurrent.BusySpinIdleStrategy;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * E3's whole scenario, the durability article's: client, then server 1 (a {@link PublishGateway} that appends to a
 * primary queue), then the replica (a {@link ReplicationSink}), then the acknowledgement, then the commit back to
 * the client. A {@link PublishClient} is one thread's, so the reader's thread is the client: JLBH's sender hands
 * each due time over an in-memory {@link SpscLongRing}, the reader publishes a message carrying it at
 * {@link CommitStage#ACKED} and polls for commits, which come in order. Timed: due time to the client seeing the
 * commit; the hand-over adds well under a microsecond.
 */
final class GatewayVariant implements LatencyVariant {
    private static final int WINDOW = PublishClient.WINDOW;

    private final boolean invoked;
    private SpoolQueue primary;
    private ReplicationSink sink;
    private ReplicationSource source;
    private PublishGateway gateway;
    private PublishClient client;
    private SpscLongRing dueTimes;
    private byte[] message;
    private final long[] pendingStarts = new long[WINDOW];
    /** The client numbers its publishes from 1. */
    private long nextCorrelation = 1;
    private long oldestCorrelation = 1;

    private GatewayVariant(final boolean invoked) {
        this.invoked = invoked;
    }

    /** @return the gateway with a source on its own thread; the gateway sleeps until acks wake it. */
    static GatewayVariant threaded() {
        return new GatewayVariant(false);
    }

    /** @return the gateway streaming for an invoked source, busy-spinning. */
    static GatewayVariant invoked() {
        return new GatewayVariant(true);
    }

    @Override
    public String name() {
        return invoked ? "e3-gateway-acked-invoked" : "e3-gateway-acked";
    }

    @Override
    public String description() {
        return "client -> gateway (append) -> replica -> ack -> commit to the client, stage ACKED; " + (invoked
                ? "the gateway's thread busy-spins and runs an invoked source with itself (CompositeAgent)"
                : "the source on its own thread, the gateway sleeping until acks wake it");
    }

    @Override
    public int spinningThreads() {
        return invoked ? 3 : 2;
    }

    @Override
    public void init(final Path directory, final int length) {
        primary = Payloads.spoolQueue(directory.resolve("primary")).openOrCreate();
        sink = ReplicationSink.builder(directory.resolve("replica")).sharedSecret(Replicas.SECRET)
                .queueSettings(b -> b.chunkLength(Payloads.CHUNK_LENGTH)).start();
        source = ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET).invoked(invoked).start();
        Replicas.awaitConnected(sink, source);
        final PublishGateway.Builder builder = PublishGateway.builder(primary, source).sharedSecret(Replicas.SECRET);
        if (invoked) {
            builder.idleStrategy(new BusySpinIdleStrategy());
        }
        gateway = builder.start();
        dueTimes = new SpscLongRing(1 << 16);
        message = Payloads.create(length);
    }

    @Override
    public void openReader() {
        client = PublishClient.connect(gateway.address(), message.length, Replicas.SECRET);
    }

    @Override
    public void send(final long startTimeNs) {
        dueTimes.put(startTimeNs);
    }

    @Override
    public long receive() {
        // with the client's whole window awaiting commits, the next due time waits in the ring: back-pressure
        final long startTimeNs = nextCorrelation - oldestCorrelation < WINDOW ? dueTimes.poll() : SpscLongRing.EMPTY;
        if (startTimeNs != SpscLongRing.EMPTY) {
            writeLong(message, startTimeNs);
            final long correlation = client.publish(message, 0, message.length, CommitStage.ACKED);
            pendingStarts[(int) (correlation & (WINDOW - 1))] = startTimeNs;
            nextCorrelation = correlation + 1;
        }
        if (oldestCorrelation < nextCorrelation && client.awaitCommit(oldestCorrelation, 0, TimeUnit.NANOSECONDS) >= 0) {
            return pendingStarts[(int) (oldestCorrelation++ & (WINDOW - 1))];
        }
        return NOTHING;
    }

    private static void writeLong(final byte[] bytes, final long value) {
        for (int i = 0; i < Long.BYTES; i++) {
            bytes[i] = (byte) (value >>> (i << 3));
        }
    }

    @Override
    public void closeReader() {
        client.close();
    }

    @Override
    public void close() {
        gateway.close();
        source.close();
        sink.close();
        primary.close();
    }
}
