package dev.spool.benchmarks.cluster;

import dev.spool.replication.CommitStage;
import dev.spool.replication.PublishClient;
import org.HdrHistogram.Histogram;

import java.net.InetSocketAddress;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * Publish latency through a gateway at steady state: one message at a time at a rate, each timed from its publish
 * to its commit at ACKED_BY_QUORUM. Measured in blocks, so that two layouts can take turns and share whatever else
 * the machine does meanwhile.
 */
final class PublishLatency implements AutoCloseable {
    private final InetSocketAddress gateway;
    private final PublishClient client;
    private final byte[] message = new byte[Publisher.MESSAGE_LENGTH];
    private final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
    private long sequence;

    /**
     * @param gateway the primary's gateway.
     * @param secret  its shared secret.
     */
    PublishLatency(final InetSocketAddress gateway, final byte[] secret) {
        this.gateway = gateway;
        this.client = PublishClient.builder(gateway, Publisher.MESSAGE_LENGTH).sharedSecret(secret).connect();
    }

    /**
     * Publishes a block of messages.
     *
     * @param messages how many.
     * @param rate     messages a second.
     * @param timed    whether they count, or warm up.
     * @throws IllegalStateException if a commit does not come within 10 s.
     */
    void block(final int messages, final int rate, final boolean timed) {
        final long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        long next = System.nanoTime();
        for (int i = 0; i < messages; i++) {
            final long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            next += interval;
            Publisher.fill(message, sequence++);
            final long start = System.nanoTime();
            final long correlation = client.publish(message, 0, message.length, CommitStage.ACKED_BY_QUORUM);
            if (client.awaitCommit(correlation, 10, TimeUnit.SECONDS) < 0) {
                throw new IllegalStateException("message " + (sequence - 1) + " was not committed at ACKED_BY_QUORUM"
                        + " by the gateway at " + gateway + " within 10 s");
            }
            if (timed) {
                latency.recordValue(Math.min(latency.getHighestTrackableValue(), System.nanoTime() - start));
            }
        }
    }

    /** @return the timed latencies, in nanoseconds. */
    Histogram latency() {
        return latency;
    }

    /**
     * @param name the layout's name.
     * @return one line: p50, p90, p99, p99.9 and the worst, in microseconds, and the count.
     */
    String line(final String name) {
        return String.format(Locale.ROOT, "  %-8s p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  worst %.1f  (%d messages)",
                name, latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(90) / 1e3,
                latency.getValueAtPercentile(99) / 1e3, latency.getValueAtPercentile(99.9) / 1e3,
                latency.getMaxValue() / 1e3, latency.getTotalCount());
    }

    /** Closes the client. */
    @Override
    public void close() {
        client.close();
    }
}
