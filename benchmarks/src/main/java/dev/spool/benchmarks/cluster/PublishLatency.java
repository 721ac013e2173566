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
 * to its commit at ACKED_BY_QUORUM, after a warm-up.
 */
final class PublishLatency {
    private PublishLatency() {
    }

    /**
     * @param gateway  the primary's gateway.
     * @param secret   its shared secret.
     * @param rate     messages a second.
     * @param warmUp   messages sent first and not timed.
     * @param messages messages timed.
     * @return the latencies, in nanoseconds.
     * @throws IllegalStateException if a commit does not come within 10 s.
     */
    static Histogram measure(final InetSocketAddress gateway, final byte[] secret, final int rate, final int warmUp,
                             final int messages) {
        final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final byte[] message = new byte[Publisher.MESSAGE_LENGTH];
        final long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        try (PublishClient client = PublishClient.builder(gateway, Publisher.MESSAGE_LENGTH).sharedSecret(secret)
                .connect()) {
            long next = System.nanoTime();
            for (int i = 0; i < warmUp + messages; i++) {
                final long wait = next - System.nanoTime();
                if (wait > 0) {
                    LockSupport.parkNanos(wait);
                }
                next += interval;
                Publisher.fill(message, i);
                final long start = System.nanoTime();
                final long correlation = client.publish(message, 0, message.length, CommitStage.ACKED_BY_QUORUM);
                if (client.awaitCommit(correlation, 10, TimeUnit.SECONDS) < 0) {
                    throw new IllegalStateException("message " + i + " was not committed at ACKED_BY_QUORUM by the"
                            + " gateway at " + gateway + " within 10 s");
                }
                if (i >= warmUp) {
                    latency.recordValue(Math.min(latency.getHighestTrackableValue(), System.nanoTime() - start));
                }
            }
        }
        return latency;
    }

    /**
     * @param name    the layout's name.
     * @param latency its latencies.
     * @return one line: p50, p90, p99, p99.9 and the worst, in microseconds, and the count.
     */
    static String line(final String name, final Histogram latency) {
        return String.format(Locale.ROOT, "  %-8s p50 %.1f  p90 %.1f  p99 %.1f  p99.9 %.1f  worst %.1f  (%d messages)",
                name, latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(90) / 1e3,
                latency.getValueAtPercentile(99) / 1e3, latency.getValueAtPercentile(99.9) / 1e3,
                latency.getMaxValue() / 1e3, latency.getTotalCount());
    }
}
