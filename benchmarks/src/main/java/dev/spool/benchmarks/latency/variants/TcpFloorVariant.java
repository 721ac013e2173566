package dev.spool.benchmarks.latency.variants;

import java.nio.file.Path;

/**
 * The floor of the replication experiments (E2, E3): a raw loopback TCP round trip of a message of the same
 * length, with TCP_NODELAY. JLBH's thread writes the message, whose first eight bytes are the start time, to a
 * socket; an echo thread, blocked in {@code read}, writes it back; the reader busy-spins on a non-blocking read of
 * the echo. Replication's ack costs at least this: one message there, one ack back.
 */
final class TcpFloorVariant implements LatencyVariant {
    private LoopbackEcho echo;

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
        echo = new LoopbackEcho(length, "tcp-floor-echo");
    }

    @Override
    public void openReader() {
        // the reader reads the client socket's echo
    }

    @Override
    public void send(final long startTimeNs) {
        echo.write(startTimeNs);
    }

    @Override
    public long receive() {
        return echo.read();
    }

    @Override
    public void closeReader() {
        // the sockets close with the sending side
    }

    @Override
    public void close() {
        echo.close();
    }
}
