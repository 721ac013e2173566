package dev.spool.importer;

import dev.spool.queue.internal.AgentHost;
import dev.spool.queue.internal.MBeans;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import javax.management.ObjectName;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A live copy of a Chronicle Queue another process still appends to into a Spool queue, so that both run side by
 * side during a migration: Chronicle Queue's own tailer follows the writer across its rolls and restarts, and each
 * data document becomes one Spool excerpt as {@link ChronicleImport#run()} writes it, at the same index a later
 * import would, so an import, a bridge and a restarted bridge take over from one another. A duty on Spool's agent
 * host: on a thread of its own, or {@linkplain #invoke() invoked} from the caller's duty cycle; its errors are
 * counted in JMX and stop it (a document that cannot be written is not skipped). Progress and lag:
 * {@link #metrics()}, in JMX as {@code dev.spool:type=Bridge}.
 */
public final class ChronicleBridge implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ChronicleBridge.class);

    /** The longest the bridge goes without checking its lag. */
    public static final Duration LAG_CHECK_INTERVAL = Duration.ofMillis(100);

    private final QueuePair queues;
    private final Copier copier;
    private final AgentHost host;
    private final ObjectName mbeanName;
    private final Metrics metrics;

    ChronicleBridge(final QueuePair queues, final Path chronicleDirectory, final Path spoolDirectory,
                    final NanoClock nanoClock, final IdleStrategy idle) {
        this.queues = queues;
        this.copier = new Copier(queues.session(), nanoClock);
        this.metrics = new Metrics(chronicleDirectory.toString(), spoolDirectory.toString(), copier);
        ObjectName registered = null;
        AgentHost started = null;
        try {
            registered = MBeans.register("Bridge", spoolDirectory.toString(), metrics, BridgeMXBean.class);
            final AgentHost.Builder builder = AgentHost.builder("bridge from " + chronicleDirectory + " to "
                    + spoolDirectory, copier).role("spool-bridge").nanoClock(nanoClock)
                    .mbeanBeside(spoolDirectory.toString());
            started = idle == null ? builder.invoked() : builder.start(idle);
        } catch (RuntimeException e) {
            if (registered != null) {
                MBeans.unregister(registered);
            }
            queues.close();
            throw e;
        }
        this.mbeanName = registered;
        this.host = started;
        metrics.host = started;
    }

    /**
     * Runs one pass on the caller's thread: copies what the Chronicle Queue holds, up to a batch, and checks the lag
     * when due. An error is counted and stops the bridge, as on its own thread.
     *
     * @return the documents copied; 0 if there was nothing to copy or the bridge stopped.
     * @throws dev.spool.queue.SpoolException if the bridge runs on its own thread.
     */
    public int invoke() {
        return host.invoke();
    }

    /** @return the bridge's progress and lag, as JMX shows them. */
    public BridgeMXBean metrics() {
        return metrics;
    }

    /** @return the errors that stopped the bridge: 0 while it runs well. */
    public long errorCount() {
        return host.errorCount();
    }

    /** @return the error that stopped the bridge, in one line; empty if none. */
    public String lastError() {
        return host.lastError();
    }

    /** Stops the bridge after the document in hand, unregisters its MBean and closes both queues. */
    @Override
    public void close() {
        try {
            host.close();
        } finally {
            try {
                MBeans.unregister(mbeanName);
            } finally {
                queues.close();
            }
        }
    }

    /** The duty: copy a batch, and check the lag when due. */
    static final class Copier implements Agent {
        private final ImportSession session;
        private final NanoClock nanoClock;
        private final long lagCheckNanos = LAG_CHECK_INTERVAL.toNanos();
        private long nextLagCheck;
        private volatile long lag;

        Copier(final ImportSession session, final NanoClock nanoClock) {
            this.session = session;
            this.nanoClock = nanoClock;
            this.nextLagCheck = nanoClock.nanoTime();
        }

        @Override
        public int doWork() {
            try {
                final int copied = session.copy(ChronicleImport.BATCH);
                final long now = nanoClock.nanoTime();
                if (now - nextLagCheck >= 0) {
                    lag = session.lag();
                    nextLagCheck = now + lagCheckNanos;
                }
                return copied;
            } catch (RuntimeException e) {
                // the document that failed was read: a next pass would skip it, so the bridge stops here and a
                // restart resumes at it from the Spool queue's content
                LOG.error("bridge from {} stopped: {}", session.chronicleDirectory(), e.getMessage(), e);
                throw new AgentTerminationException(e);
            }
        }

        @Override
        public String roleName() {
            return "spool-bridge";
        }

        long lag() {
            return lag;
        }

        ImportCounters counters() {
            return session.counters();
        }
    }

    /** The MXBean: reads the copier's counters, which its thread publishes. */
    static final class Metrics implements BridgeMXBean {
        private final String chronicleDirectory;
        private final String spoolDirectory;
        private final Copier copier;
        private volatile AgentHost host;

        Metrics(final String chronicleDirectory, final String spoolDirectory, final Copier copier) {
            this.chronicleDirectory = chronicleDirectory;
            this.spoolDirectory = spoolDirectory;
            this.copier = copier;
        }

        @Override
        public String getChronicleDirectory() {
            return chronicleDirectory;
        }

        @Override
        public String getSpoolDirectory() {
            return spoolDirectory;
        }

        @Override
        public long getDocumentsCopied() {
            return copier.counters().documentsWritten();
        }

        @Override
        public long getBytesCopied() {
            return copier.counters().bytesWritten();
        }

        @Override
        public long getMetadataSkipped() {
            return copier.counters().metadataSkippedCount();
        }

        @Override
        public long getLastChronicleIndex() {
            return copier.counters().lastChronicleIndex();
        }

        @Override
        public long getLastSpoolIndex() {
            return copier.counters().lastSpoolIndex();
        }

        @Override
        public long getLagDocuments() {
            return copier.lag();
        }

        @Override
        public boolean isRunning() {
            final AgentHost current = host;
            return current != null && current.isRunning();
        }
    }
}
