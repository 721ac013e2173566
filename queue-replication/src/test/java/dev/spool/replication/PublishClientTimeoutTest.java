package dev.spool.replication;

import dev.spool.queue.SpoolTestBase;
import dev.spool.replication.protocol.GrantFlyweight;
import dev.spool.replication.protocol.ReadyFlyweight;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;

import static dev.spool.replication.Replicas.SECRET;
import static dev.spool.replication.protocol.FrameDescriptor.GRANT_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.READY_FLAG_DEDUPLICATES;
import static dev.spool.replication.protocol.FrameDescriptor.READY_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_GRANT;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_READY;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A client never waits for its gateway without a deadline, and says which gateway failed it. */
class PublishClientTimeoutTest extends SpoolTestBase {
    @Test
    void shouldFailAPublishToAGatewayThatReadsNothingWithinTheTimeoutNamingIt() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            final InetSocketAddress address = (InetSocketAddress) server.getLocalAddress();
            // a copy for re-sending larger than the sockets' buffers: they fill first
            try (PublishClient client = PublishClient.builder(address, 1 << 20).insecure().timeout(Duration.ofMillis(300))
                    .resendCapacity(64 << 20).connect();
                 SocketChannel accepted = server.accept()) {
                // a gateway that opens the connection and grants an epoch, then reads nothing
                final ByteBuffer ready = Wire.frame(READY_LENGTH, TYPE_READY);
                new ReadyFlyweight().wrap(ready, 0).flags(READY_FLAG_DEDUPLICATES).term(0);
                final ByteBuffer grant = Wire.frame(GRANT_LENGTH, TYPE_GRANT);
                new GrantFlyweight().wrap(grant, 0).set(client.clientId(), 1);
                accepted.write(new ByteBuffer[]{ready, grant});
                final byte[] message = new byte[1 << 20];
                final PublishException failed = assertTimeoutPreemptively(Duration.ofSeconds(60),
                        () -> assertThrows(PublishException.class, () -> {
                            while (true) {
                                client.publish(message, 0, message.length, CommitStage.WRITTEN);
                            }
                        }), "the socket's buffers fill, then the publish gives up");
                final String why = failed.getCause().getMessage();
                assertTrue(why.startsWith("the publish gateway at " + address + " took nothing of message "), why);
                assertTrue(why.endsWith(" for 300 ms: its socket buffer stayed full"), why);
                assertTrue(failed.inDoubt(), "the message got its sequence and was handed to the socket");
                assertEquals(client.lastSequence(), failed.sequence());
                assertTrue(failed.getMessage().contains("the message got sequence " + failed.sequence() + " of client"
                        + " id 0x" + Long.toHexString(client.clientId()) + " epoch 1 and may have reached the gateway:"
                        + " it is in doubt"), failed.getMessage());
                assertTrue(accepted.isOpen());
            }
        }
    }

    @Test
    void shouldFailTheHandshakeWithAGatewayThatNeverAnswersWithinTheTimeoutNamingIt() throws IOException {
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0))) {
            final InetSocketAddress address = (InetSocketAddress) server.getLocalAddress();
            final UncheckedIOException failed = assertTimeoutPreemptively(Duration.ofSeconds(60),
                    () -> assertThrows(UncheckedIOException.class,
                            () -> PublishClient.connect(address, 64, SECRET, Duration.ofMillis(300))));
            assertTrue(failed.getCause().getMessage().equals("no CHALLENGE from the publish gateway at " + address
                    + " within 300 ms"), failed.getCause().getMessage());
        }
    }
}
