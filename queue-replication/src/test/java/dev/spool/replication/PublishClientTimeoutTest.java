package dev.spool.replication;

import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;

import static dev.spool.replication.Replicas.SECRET;
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
                final byte[] message = new byte[1 << 20];
                final UncheckedIOException failed = assertTimeoutPreemptively(Duration.ofSeconds(60),
                        () -> assertThrows(UncheckedIOException.class, () -> {
                            while (true) {
                                client.publish(message, 0, message.length, CommitStage.WRITTEN);
                            }
                        }), "the socket's buffers fill, then the publish gives up");
                final String why = failed.getCause().getMessage();
                assertTrue(why.startsWith("the publish gateway at " + address + " took nothing of message "), why);
                assertTrue(why.endsWith(" for 300 ms: its socket buffer stayed full"), why);
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
