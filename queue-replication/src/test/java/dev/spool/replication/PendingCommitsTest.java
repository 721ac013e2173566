package dev.spool.replication;

import dev.spool.queue.SpoolTestBase;
import dev.spool.replication.protocol.Connection;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The gateway's pending commits: bounded, and a client found gone while they are sent is handed back at once. */
class PendingCommitsTest extends SpoolTestBase {
    @Test
    void shouldHandBackAClientFoundGoneWhenItsCommitsAreSentSoItsSlotIsFreedAtOnce() throws IOException {
        final List<GatewayClient> gone = new ArrayList<>();
        final PendingCommits pending = new PendingCommits(tempDir, 1024, gone::add);
        final Connection connection = new Connection(SystemNanoClock.INSTANCE, 256, 256);
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             Socket peer = new Socket(InetAddress.getLoopbackAddress(),
                     ((InetSocketAddress) server.getLocalAddress()).getPort())) {
            connection.attach(server.accept());
            final GatewayClient client = new GatewayClient(connection, InetAddress.getLoopbackAddress(), 0,
                    System.nanoTime(), GatewayClient.OPEN);
            // a reset, which the gateway learns only when it writes the commits
            peer.setSoLinger(true, 0);
            peer.close();
            final long[] correlation = {0};
            Replicas.await(() -> {
                pending.add(client, correlation[0]++, 0, CommitStage.WRITTEN.ordinal());
                pending.release(null, -1);
                return !gone.isEmpty();
            }, "the client is found gone");
            assertEquals(1, gone.size());
            assertSame(client, gone.get(0));
        } finally {
            connection.close();
        }
        assertEquals(0, pending.count(), "a gone client's commits are dropped");
    }

    @Test
    void shouldRefuseACommitPastTheLimit() {
        final PendingCommits pending = new PendingCommits(tempDir, 2, client -> { });
        final Connection connection = new Connection(SystemNanoClock.INSTANCE, 256, 256);
        try {
            final GatewayClient client = new GatewayClient(connection, InetAddress.getLoopbackAddress(), 0,
                    System.nanoTime(), GatewayClient.OPEN);
            pending.add(client, 1, 1, CommitStage.ACKED.ordinal());
            pending.add(client, 2, 2, CommitStage.ACKED.ordinal());
            assertTrue(pending.isFull());
            assertTrue(assertThrows(IllegalStateException.class,
                    () -> pending.add(client, 3, 3, CommitStage.ACKED.ordinal())).getMessage()
                    .contains("maxPendingCommits=2"));
        } finally {
            connection.close();
        }
    }
}
