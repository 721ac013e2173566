package dev.spool.replication;

import dev.spool.replication.protocol.BufferBudget;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.FrameHeader;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

import static dev.spool.replication.protocol.FrameDescriptor.HEADER_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_DATA;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A server connection's buffers grow all or nothing: when the allocation fails (direct memory exhausted), the buffer,
 * the budget and the connection's close are as before, so the server drops that one connection and serves the rest.
 */
class ConnectionBudgetTest {
    /**
     * More than the test JVM may hold in direct buffers (surefire runs it with -Xmx1g, and the direct memory limit
     * follows the heap's): the allocation fails at once, without taking any memory.
     */
    private static final int TOO_LARGE = 1_500_000_000;
    private static final int START = 256;

    @Test
    void shouldKeepTheSendBufferAndTheBudgetWhenGrowingItFails() throws IOException {
        final BufferBudget budget = new BufferBudget(4L << 30);
        final Connection connection = new Connection(SystemNanoClock.INSTANCE, START, START, budget);
        try {
            assertThrows(OutOfMemoryError.class, () -> connection.growSend(TOO_LARGE));
            assertEquals(2 * START, budget.reserved(), "the growth's reservation is returned");
            assertEquals(START, connection.send().capacity(), "the old buffer stays");
        } finally {
            connection.close();
        }
        assertEquals(0, budget.reserved());
    }

    @Test
    void shouldKeepTheReceiveBufferAndTheBudgetWhenGrowingItForAFrameFails() throws IOException {
        final BufferBudget budget = new BufferBudget(4L << 30);
        final Connection connection = new Connection(SystemNanoClock.INSTANCE, START, START, budget);
        try (ServerSocketChannel server = ServerSocketChannel.open()
                .bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
             SocketChannel peer = SocketChannel.open(server.getLocalAddress())) {
            connection.attach(server.accept());
            connection.maxFrameLength(Integer.MAX_VALUE);
            final ByteBuffer header = Wire.frame(HEADER_LENGTH, TYPE_DATA);
            new FrameHeader().wrap(header, 0).frameLength(TOO_LARGE);
            peer.write(header);
            Replicas.await(() -> receive(connection) > 0, "the header arrived");
            assertThrows(OutOfMemoryError.class, connection::nextFrame);
            assertEquals(2 * START, budget.reserved(), "the growth's reservation is returned");
            assertEquals(START, connection.received().capacity(), "the old buffer stays");
        } finally {
            connection.close();
        }
        assertEquals(0, budget.reserved());
    }

    private static int receive(final Connection connection) {
        try {
            return connection.receive();
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }
}
