package dev.spool.replication;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

/**
 * A loopback TCP relay to a port, whose connections a test can cut at any moment (a network failure on demand) or
 * pause (a peer that stops reading: its buffers fill and the sender's writes stop moving).
 */
final class Proxy implements AutoCloseable {
    private volatile boolean paused;
    private final ServerSocket server;
    private final int target;
    private final List<Socket> sockets = new ArrayList<>();
    private final Thread acceptor;

    Proxy(final int target) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "proxy-accept");
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                final Socket client = server.accept();
                final Socket upstream;
                try {
                    upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                } catch (IOException e) {
                    client.close();
                    continue;
                }
                client.setTcpNoDelay(true);
                upstream.setTcpNoDelay(true);
                synchronized (sockets) {
                    sockets.add(client);
                    sockets.add(upstream);
                }
                pump(client, upstream);
                pump(upstream, client);
            } catch (IOException e) {
                return;
            }
        }
    }

    private void pump(final Socket from, final Socket to) {
        final Thread thread = new Thread(() -> {
            final byte[] buffer = new byte[64 * 1024];
            try {
                final InputStream in = from.getInputStream();
                final OutputStream out = to.getOutputStream();
                int read;
                while (true) {
                    while (paused && !from.isClosed()) {
                        LockSupport.parkNanos(1_000_000);
                    }
                    if ((read = in.read(buffer)) < 0) {
                        break;
                    }
                    out.write(buffer, 0, read);
                }
            } catch (IOException e) {
                // the other direction or cut() closed the sockets: the relay of this connection ends
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        }, "proxy-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void closeQuietly(final Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Stops relaying, both ways, without closing anything: each peer sees the other stop reading and writing. */
    void pause() {
        paused = true;
    }

    /** Relays again after {@link #pause()}. */
    void resume() {
        paused = false;
    }

    /** Closes every relayed connection: both peers see it drop. */
    void cut() {
        synchronized (sockets) {
            for (final Socket socket : sockets) {
                closeQuietly(socket);
            }
            sockets.clear();
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        cut();
    }
}
