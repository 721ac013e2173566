package dev.spool.benchmarks.latency.variants;

import net.openhft.chronicle.core.Jvm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;

/**
 * The floor of the replication experiments (E2, E3): a raw loopback TCP round trip of a message of the same
 * length, with TCP_NODELAY. JLBH's thread writes the message, whose first eight bytes are the start time, to a
 * socket; an echo thread, blocked in {@code read}, writes it back; the reader busy-spins on a non-blocking read of
 * the echo. Replication's ack costs at least this: one message there, one ack back.
 */
final class TcpFloorVariant implements LatencyVariant {
    private SocketChannel client;
    private ServerSocketChannel server;
    private Thread echo;
    private ByteBuffer message;
    private ByteBuffer received;
    private int length;

    @Override
    public String name() {
        return "floor-tcp";
    }

    @Override
    public String description() {
        return "raw loopback TCP round trip of the message (TCP_NODELAY): write, echo thread blocked in read,"
                + " non-blocking read of the echo";
    }

    @Override
    public void init(final Path directory, final int length) {
        this.length = length;
        try {
            server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client = SocketChannel.open(server.getLocalAddress());
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            final SocketChannel peer = server.accept();
            peer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            echo = new Thread(() -> echo(peer), "tcp-floor-echo");
            echo.setDaemon(true);
            echo.start();
            client.configureBlocking(false);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the loopback sockets", e);
        }
        message = ByteBuffer.allocateDirect(length).order(ByteOrder.LITTLE_ENDIAN);
        received = ByteBuffer.allocateDirect(Math.max(64 * 1024, length)).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static void echo(final SocketChannel peer) {
        final ByteBuffer buffer = ByteBuffer.allocateDirect(64 * 1024);
        try (SocketChannel channel = peer) {
            while (channel.read(buffer) >= 0) {
                buffer.flip();
                while (buffer.hasRemaining()) {
                    channel.write(buffer);
                }
                buffer.clear();
            }
        } catch (IOException e) {
            // the benchmark closed the client: the echo ends with it
            Jvm.debug().on(TcpFloorVariant.class, "echo ends: " + e);
        }
    }

    @Override
    public void openReader() {
        // the reader reads the client socket's echo
    }

    @Override
    public void send(final long startTimeNs) {
        final ByteBuffer message = this.message;
        message.clear();
        message.putLong(0, startTimeNs);
        try {
            while (message.hasRemaining()) {
                client.write(message);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("loopback write failed", e);
        }
    }

    @Override
    public long receive() {
        final ByteBuffer received = this.received;
        try {
            if (received.position() < length && client.read(received) < 0) {
                throw new IOException("the echo closed the connection");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("loopback read failed", e);
        }
        if (received.position() < length) {
            return NOTHING;
        }
        final long startTimeNs = received.getLong(0);
        final int end = received.position();
        received.limit(end).position(length);
        received.compact();
        return startTimeNs;
    }

    @Override
    public void closeReader() {
        // the sockets close with the sending side
    }

    @Override
    public void close() {
        try {
            client.close();
            server.close();
            echo.join();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close the loopback sockets", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
