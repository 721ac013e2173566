package dev.spool.replication;

import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/** A replication service's agent shows its errors in an MBean beside the service's own, on its thread or invoked. */
class ServiceAgentMBeanTest extends SpoolTestBase {
    private static final byte[] SECRET = "the agent MBean test's secret, 32+ bytes long".getBytes(StandardCharsets.US_ASCII);

    private static ObjectName agentName(final Path owner, final String role) throws Exception {
        return new ObjectName("dev.spool:type=Agent,name=" + ObjectName.quote(owner.toString()) + ",role="
                + ObjectName.quote(role));
    }

    @Test
    void shouldRegisterTheAgentOfASinkOnItsThreadAndOfAnInvokedSourceBesideTheirMBeans() throws Exception {
        final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        final Path replica = tempDir.resolve("replica").toAbsolutePath().normalize();
        final Path primaryDirectory = tempDir.resolve("primary").toAbsolutePath().normalize();
        final ObjectName sinkAgent = agentName(replica, ReplicationSink.THREAD_NAME);
        final ObjectName sourceAgent = agentName(primaryDirectory, ReplicationSource.THREAD_NAME);
        try (SpoolQueue primary = SpoolQueue.builder(primaryDirectory).chunkLength(1 << 20).openOrCreate();
             ReplicationSink sink = ReplicationSink.builder(replica).sharedSecret(SECRET)
                     .queueSettings(b -> b.chunkLength(1 << 20)).registerMBean().start()) {
            assertEquals(0L, server.getAttribute(sinkAgent, "ErrorCount"));
            assertEquals(Boolean.TRUE, server.getAttribute(sinkAgent, "Running"));
            assertEquals(ReplicationSink.THREAD_NAME, server.getAttribute(sinkAgent, "Role"));
            try (ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(SECRET)
                    .invoked().registerMBean().start()) {
                source.doWork();
                assertEquals(0L, server.getAttribute(sourceAgent, "ErrorCount"));
                assertEquals("", server.getAttribute(sourceAgent, "LastError"));
            }
            assertFalse(server.isRegistered(sourceAgent), "unregistered when the source closes");
        }
        assertFalse(server.isRegistered(sinkAgent), "unregistered when the sink closes");
    }
}
