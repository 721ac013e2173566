package dev.spool.benchmarks.support;

import dev.spool.replication.ReplicationSink;

import java.util.concurrent.locks.LockSupport;

/** What the benchmarks that replicate share: the JMH replication benchmark and the replicated latency variants. */
public final class Replicas {
    private Replicas() {
    }

    /**
     * Waits for the replication source to connect to the sink, so that no measurement includes the connection.
     *
     * @param sink a started sink.
     * @throws IllegalStateException if no source connected within 30 s.
     */
    public static void awaitConnected(final ReplicationSink sink) {
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (!sink.isConnected()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the replication source did not connect within 30 s");
            }
            LockSupport.parkNanos(1_000_000);
        }
    }
}
