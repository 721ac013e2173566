package dev.spool.benchmarks.support;

import dev.spool.replication.ReplicationSink;
import dev.spool.replication.ReplicationSource;

import java.util.concurrent.locks.LockSupport;

/** What the benchmarks that replicate share: the JMH replication benchmark and the replicated latency variants. */
public final class Replicas {
    /**
     * The shared secret of the benchmarks' sinks, sources, gateways and clients, drawn per run: replication is secure
     * by default, and the benchmarks measure it so, each frame's MAC included. A deployment reads its secret from a
     * file only its user can read (docs/operations/security.md, "Security model").
     */
    public static final byte[] SECRET = secret();

    private Replicas() {
    }

    private static byte[] secret() {
        final byte[] secret = new byte[32];
        new java.security.SecureRandom().nextBytes(secret);
        return secret;
    }

    /**
     * Waits for the replication source to connect to the sink, so that no measurement includes the connection; an
     * invoked source, which has no thread to connect it, is invoked meanwhile.
     *
     * @param sink   a started sink.
     * @param source the source that connects to it.
     * @throws IllegalStateException if no source connected within 30 s.
     */
    public static void awaitConnected(final ReplicationSink sink, final ReplicationSource source) {
        awaitConnected(source, sink);
    }

    /**
     * Waits for the replication source to connect to every one of its sinks, invoking an invoked source meanwhile.
     *
     * @param source the source.
     * @param sinks  every sink it replicates to, started.
     * @throws IllegalStateException if not all connected within 30 s.
     */
    public static void awaitConnected(final ReplicationSource source, final ReplicationSink... sinks) {
        final long deadline = System.nanoTime() + 30_000_000_000L;
        while (!allConnected(sinks) || source.connectedReplicas() < sinks.length) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the replication source did not connect to its " + sinks.length
                        + " sinks within 30 s");
            }
            if (!source.isInvoked()) {
                LockSupport.parkNanos(1_000_000);
            } else if (source.doWork() == 0) {
                LockSupport.parkNanos(10_000);
            }
        }
    }

    private static boolean allConnected(final ReplicationSink[] sinks) {
        for (final ReplicationSink sink : sinks) {
            if (!sink.isConnected()) {
                return false;
            }
        }
        return true;
    }
}
