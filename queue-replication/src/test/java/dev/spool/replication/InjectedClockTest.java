package dev.spool.replication;

import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.NanoClock;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The services time their deadlines, back-offs and heartbeats with the clock their builder was given, over real
 * sockets: nothing times out, and nothing is retried, until the test moves its clock, however long the test takes.
 */
class InjectedClockTest extends SpoolTestBase {
    /** Deadlines the system's clock cannot reach within {@link #WAIT_SECONDS}: only the hand clock can pass them. */
    private static final Duration HEARTBEAT = Duration.ofMinutes(1);
    private static final Duration BACKOFF = Duration.ofMinutes(1);
    private static final long WAIT_SECONDS = 10;
    /** Passes run while the clock stands still: far more than a real-time deadline of this test would allow. */
    private static final int PASSES = 2_000;

    /** A clock that moves only when the test moves it. */
    private static final class HandClock implements NanoClock {
        private volatile long now = 1_000_000_000L;

        @Override
        public long nanoTime() {
            return now;
        }

        void advance(final Duration by) {
            now += by.toNanos();
        }
    }

    @Test
    void shouldTimeTheHandshakeDeadlineAndTheReconnectBackoffOfAnInvokedSourceWithItsInjectedClock() throws IOException {
        final HandClock clock = new HandClock();
        try (SpoolQueue primary = Replicas.open(tempDir.resolve("primary"));
             ServerSocketChannel silentSink = ServerSocketChannel.open()) {
            silentSink.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            silentSink.configureBlocking(false);
            try (ReplicationSource source = ReplicationSource.builder(primary,
                            (InetSocketAddress) silentSink.getLocalAddress())
                    .sharedSecret(Replicas.SECRET).heartbeatInterval(HEARTBEAT).reconnectBackoff(BACKOFF, BACKOFF)
                    .nanoClock(clock).invoked().start()) {
                final SocketChannel first = acceptWhileInvoking(silentSink, source);
                first.configureBlocking(false);
                final ByteBuffer received = ByteBuffer.allocate(4096);
                for (int pass = 0; pass < PASSES; pass++) {
                    source.doWork();
                    assertTrue(first.read(received) >= 0, "the source keeps waiting for WELCOME: its clock stands");
                    received.clear();
                }
                assertNull(source.failure());

                clock.advance(HEARTBEAT.multipliedBy(3).plusNanos(1));
                invokeUntil(source, () -> readEnd(first), "the source gives up the handshake, three heartbeats on");

                for (int pass = 0; pass < PASSES; pass++) {
                    source.doWork();
                    assertNull(silentSink.accept(), "no retry before the back-off has passed on the source's clock");
                }
                clock.advance(BACKOFF);
                final SocketChannel second = acceptWhileInvoking(silentSink, source);
                second.close();
                first.close();
            }
        }
    }

    @Test
    void shouldCloseASilentConnectionToAnInvokedSinkOnlyWhenItsInjectedClockPassesTheHandshakeDeadline()
            throws IOException {
        final HandClock clock = new HandClock();
        try (ReplicationSink sink = ReplicationSink.builder(tempDir.resolve("replica")).sharedSecret(Replicas.SECRET)
                .heartbeatInterval(HEARTBEAT).nanoClock(clock).invoked().start();
             Socket silentSource = new Socket(InetAddress.getLoopbackAddress(), sink.address().getPort())) {
            silentSource.setSoTimeout(1);
            invokeUntil(sink, () -> sink.doWork() > 0, "the sink accepts the connection");
            for (int pass = 0; pass < PASSES; pass++) {
                sink.doWork();
            }
            assertTrue(open(silentSource), "the sink waits for HELLO while its clock stands");

            clock.advance(HEARTBEAT.multipliedBy(3).plusNanos(1));
            invokeUntil(sink, () -> !open(silentSource), "the sink closes the connection, three heartbeats on");
        }
    }

    private static SocketChannel acceptWhileInvoking(final ServerSocketChannel server, final ReplicationSource source)
            throws IOException {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        SocketChannel accepted;
        while ((accepted = server.accept()) == null) {
            if (System.nanoTime() - deadline > 0) {
                fail("the source never connected");
            }
            source.doWork();
        }
        return accepted;
    }

    /** Calls {@code doWork} until the condition holds: nothing else runs an invoked service. */
    private static void invokeUntil(final Agent service, final BooleanSupplier done,
                                    final String what) {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(WAIT_SECONDS);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail("timed out invoking until " + what);
            }
            try {
                service.doWork();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }

    /** @return true once the peer closed the channel. */
    private static boolean readEnd(final SocketChannel channel) {
        try {
            final ByteBuffer scratch = ByteBuffer.allocate(4096);
            int read;
            while ((read = channel.read(scratch)) > 0) {
                scratch.clear();
            }
            return read < 0;
        } catch (IOException e) {
            return true;
        }
    }

    /** @return false once the peer closed the socket; reads what it sent, which a silent peer is never sent. */
    private static boolean open(final Socket socket) {
        try {
            return socket.getInputStream().read() >= 0;
        } catch (SocketTimeoutException e) {
            return true;
        } catch (IOException e) {
            return false;
        }
    }
}
