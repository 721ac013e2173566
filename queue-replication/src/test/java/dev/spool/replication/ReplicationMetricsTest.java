package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.QueueMXBean;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/** Replication's state through JMX: the sink's MBean, and the primary queue's acknowledgement lag. */
class ReplicationMetricsTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);

    @Test
    void shouldShowTheSinkAndThePrimarysAckLagThroughJmx() throws Exception {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        final Path replicaDirectory = tempDir.resolve("replica").toAbsolutePath().normalize();
        final ObjectName name = new ObjectName("dev.spool:type=ReplicationSink,name="
                + ObjectName.quote(replicaDirectory.toString()));
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink sink = ReplicationSink.builder(replicaDirectory).sharedSecret(Replicas.SECRET).queueSettings(b -> b.chunkLength(1 << 20))
                     .heartbeatInterval(HEARTBEAT).registerMBean().start()) {
            append(appender, 0, 100);
            final QueueMXBean metrics = primary.metrics();
            assertEquals(100, metrics.getAckLag(), "nothing acknowledged before a source runs");
            assertEquals(Boolean.FALSE, server.getAttribute(name, "Connected"));
            try (ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET).heartbeatInterval(HEARTBEAT)
                    .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100)).start()) {
                await(() -> metrics.getAckLag() == 0, "the replica acknowledged everything");
                assertEquals(primary.lastIndex(), metrics.getLastAckedIndex());
                assertEquals(primary.lastIndex(), server.getAttribute(name, "LastIndex"));
                assertEquals(Boolean.TRUE, server.getAttribute(name, "Connected"));
                assertEquals("", server.getAttribute(name, "Failure"));
                assertEquals("", server.getAttribute(name, "Divergence"));
                assertEquals(sink.address().toString(), server.getAttribute(name, "Address"));
            }
        }
        assertFalse(server.isRegistered(name), "closing the sink unregisters its MBean");
    }

    @Test
    void shouldShowEachReplicasAckedIndexAndLagThroughTheSourcesMBean() throws Exception {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        final Path primaryDirectory = tempDir.resolve("primary").toAbsolutePath().normalize();
        final ObjectName name = new ObjectName("dev.spool:type=ReplicationSource,name="
                + ObjectName.quote(primaryDirectory.toString()));
        try (SpoolQueue primary = open(primaryDirectory); ExcerptAppender appender = primary.createAppender();
             ReplicationSink one = ReplicationSink.builder(tempDir.resolve("one")).sharedSecret(Replicas.SECRET)
                     .heartbeatInterval(HEARTBEAT).start();
             ReplicationSink two = ReplicationSink.builder(tempDir.resolve("two")).sharedSecret(Replicas.SECRET)
                     .heartbeatInterval(HEARTBEAT).start();
             ReplicationSource source = ReplicationSource.builder(primary, one.address(), two.address())
                     .sharedSecret(Replicas.SECRET).heartbeatInterval(HEARTBEAT)
                     .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100)).registerMBean().start()) {
            append(appender, 0, 100);
            final long last = primary.lastIndex();
            await(() -> source.ackedIndex(0) == last && source.ackedIndex(1) == last && Failover.quorumAckedIndex(primary) == last,
                    "both replicas acknowledged everything");
            assertEquals(2, server.getAttribute(name, "Replicas"));
            assertEquals(2, server.getAttribute(name, "AckQuorum"));
            assertEquals(2, server.getAttribute(name, "ConnectedReplicas"));
            assertEquals(last, server.getAttribute(name, "QuorumAckedIndex"));
            assertArrayEquals(new long[]{last, last}, (long[]) server.getAttribute(name, "AckedIndices"));
            assertArrayEquals(new long[]{0, 0}, (long[]) server.getAttribute(name, "UnackedBytes"));
            assertArrayEquals(new String[]{"", ""}, (String[]) server.getAttribute(name, "Failures"));
            assertEquals(Boolean.FALSE, server.getAttribute(name, "AcknowledgementsHeld"));
            source.holdAcknowledgements();
            assertEquals(Boolean.TRUE, server.getAttribute(name, "AcknowledgementsHeld"));
            source.releaseAcknowledgements();
            assertArrayEquals(new String[]{one.address().toString(), two.address().toString()},
                    (String[]) server.getAttribute(name, "ReplicaAddresses"));
        }
        assertFalse(server.isRegistered(name), "closing the source unregisters its MBean");
    }
}
