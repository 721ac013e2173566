package dev.spool.failover;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback TCP relay to a port that a test can block: blocked, it drops every relayed connection and refuses new
 * ones (it accepts and resets them at once), a network partition between the peers on either side until
 * {@link #unblock()}.
 */
final class Relay implements AutoCloseable {
    private final ServerSocket server;
    private final int target;
    private final List<Socket> sockets = new ArrayList<>();
    /** Guarded by {@link #sockets}, so that no connection is let through once {@link #block()} returns. */
    private boolean blocked;

    Relay(final int target, final String name) throws IOException {
        this.target = target;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        final Thread acceptor = new Thread(this::accept, "relay-" + name);
        acceptor.setDaemon(true);
        acceptor.start();
    }

    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            final Socket client;
            try {
                client = server.accept();
            } catch (IOException e) {
                return;
            }
            final Socket upstream;
            try {
                client.setTcpNoDelay(true);
                upstream = new Socket(InetAddress.getLoopbackAddress(), target);
                upstream.setTcpNoDelay(true);
            } catch (IOException e) {
                // nothing listens behind the relay now (a killed node, a stopped server): the peer sees a reset
                reset(client);
                continue;
            }
            synchronized (sockets) {
                if (blocked) {
                    reset(client);
                    reset(upstream);
                    continue;
                }
                sockets.add(client);
                sockets.add(upstream);
            }
            pump(client, upstream);
            pump(upstream, client);
        }
    }

    private void pump(final Socket from, final Socket to) {
        final Thread thread = new Thread(() -> {
            final byte[] buffer = new byte[16 * 1024];
            try {
                final InputStream in = from.getInputStream();
                final OutputStream out = to.getOutputStream();
                int read;
                while ((read = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, read);
                }
            } catch (IOException e) {
                // the other direction or block() closed the sockets: the relay of this connection ends
            } finally {
                reset(from);
                reset(to);
            }
        }, "relay-pump");
        thread.setDaemon(true);
        thread.start();
    }

    private static void reset(final Socket socket) {
        try {
            socket.setSoLinger(true, 0);
        } catch (SocketException e) {
            // the other direction closed it meanwhile: it was reset or closed already
        }
        try {
            socket.close();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot close a relayed socket " + socket, e);
        }
    }

    /** Drops every relayed connection and refuses new ones until {@link #unblock()}. */
    void block() {
        synchronized (sockets) {
            blocked = true;
            sockets.forEach(Relay::reset);
            sockets.clear();
        }
    }

    /** Relays new connections again. */
    void unblock() {
        synchronized (sockets) {
            blocked = false;
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        block();
    }
}
