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

/**
 * The raw TCP floors' connection: a loopback socket (TCP_NODELAY) whose far end, a thread of its own blocked in
 * {@code read}, echoes everything back, as a sink or a gateway waiting in its selector answers. Messages carry their
 * start time in their first eight bytes. {@link #write(long)} and {@link #read()} may run on two threads, one each;
 * neither allocates.
 */
final class LoopbackEcho implements AutoCloseable {
    private final ServerSocketChannel server;
    private final SocketChannel client;
    private final Thread echo;
    private final int length;
    private final ByteBuffer message;
    private final ByteBuffer received;

    /**
     * @param length bytes per message, at least eight.
     * @param name   the echo thread's name.
     */
    LoopbackEcho(final int length, final String name) {
        this.length = length;
        try {
            server = ServerSocketChannel.open();
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            client = SocketChannel.open(server.getLocalAddress());
            client.setOption(StandardSocketOptions.TCP_NODELAY, true);
            final SocketChannel peer = server.accept();
            peer.setOption(StandardSocketOptions.TCP_NODELAY, true);
            echo = new Thread(() -> echo(peer), name);
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
            Jvm.debug().on(LoopbackEcho.class, "echo ends: " + e);
        }
    }

    /** Writes one message carrying {@code startTimeNs}, spinning on a full socket. */
    void write(final long startTimeNs) {
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

    /** @return the start time of the next echoed message, or {@link LatencyVariant#NOTHING} if none is whole yet. */
    long read() {
        final ByteBuffer received = this.received;
        try {
            if (received.position() < length && client.read(received) < 0) {
                throw new IOException("the echo closed the connection");
            }
        } catch (IOException e) {
            throw new UncheckedIOException("loopback read failed", e);
        }
        if (received.position() < length) {
            return LatencyVariant.NOTHING;
        }
        final long startTimeNs = received.getLong(0);
        final int end = received.position();
        received.limit(end).position(length);
        received.compact();
        return startTimeNs;
    }

    /** Closes the connection and waits for the echo thread to end. */
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
