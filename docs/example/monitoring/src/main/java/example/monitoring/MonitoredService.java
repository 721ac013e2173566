package example.monitoring;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.CommitStage;
import dev.spool.replication.ReplicationSink;
import dev.spool.replication.ReplicationSource;
import dev.spool.ringbuffer.AsyncAppender;
import dev.spool.ringbuffer.AsyncQueue;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The monitored application: a queue with a ring in front of it and a replica on loopback, and a failover cluster of
 * two nodes with a client publishing through its gateway ({@link MonitoredCluster}), every MBean registered
 * ({@code registerMBean()} on each builder). It appends orders through the ring, waits until the replica holds the
 * last one, prints {@code ready} and waits for its standard input to close (its parent is gone), with the exporter
 * agent serving the MBeans meanwhile.
 */
public final class MonitoredService {
    /** Orders appended before the service says it is ready. */
    static final int ORDERS = 1_000;

    private MonitoredService() {
    }

    /**
     * Runs the service.
     *
     * @param args the directory to create the primary, the replica and the ring in.
     * @throws Exception if a queue cannot be written or replicated.
     */
    public static void main(final String[] args) throws Exception {
        final Path work = Path.of(args[0]);
        // insecure() keeps the recipe to its subject, on the loopback address; a real deployment gives both ends a
        // shared secret (the replication recipe shows how)
        try (ReplicationSink sink = ReplicationSink.builder(work.resolve("replica")).port(0).insecure()
                     .queueSettings(b -> b.registerMBean()).registerMBean().start();
             SpoolQueue queue = SpoolQueue.builder(work.resolve("primary")).registerMBean().create();
             ReplicationSource source = ReplicationSource.builder(queue, sink.address()).insecure().registerMBean()
                     .start();
             AsyncQueue async = AsyncQueue.builder(queue).ringPath(work.resolve("primary.ring")).registerMBean()
                     .build();
             MonitoredCluster cluster = MonitoredCluster.start(work)) {
            async.startDrainer();
            final AsyncAppender appender = async.createAppender();
            long position = -1;
            for (int order = 0; order < ORDERS; order++) {
                position = appender.claim(Long.BYTES);
                appender.buffer().writeLong(appender.payloadOffset(position), order);
                appender.commit(position);
            }
            final long last = appender.awaitIndex(position, 10, TimeUnit.SECONDS);
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (source.ackedIndex(0) < last) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("the replica did not acknowledge index 0x" + Long.toHexString(last)
                            + " within 10 s (" + CommitStage.ACKED + "): " + source.failure());
                }
                Thread.sleep(1);
            }
            // a consumer that has read half the orders: its lag is what an alert on a stuck consumer watches
            try (ExcerptTailer risk = queue.createTailer("risk")) {
                for (int order = 0; order < ORDERS / 2; order++) {
                    risk.read((bytes, offset, length, index) -> { });
                }
            }
            System.out.println("ready");
            System.out.flush();
            while (System.in.read() >= 0) {
                // the parent sends nothing; this only waits for it to go
            }
        }
    }
}
