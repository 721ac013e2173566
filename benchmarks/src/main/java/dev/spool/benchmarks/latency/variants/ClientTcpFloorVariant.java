package dev.spool.benchmarks.latency.variants;

import java.nio.file.Path;

/**
 * The floor of the publish gateway ({@code e3-gateway-acked}): a raw loopback TCP client -> server -> client round
 * trip with the gateway variant's hand-offs. JLBH's sender hands each due time over an in-memory
 * {@link SpscLongRing} to the reader, which is the client, as in the gateway variant: it writes the message to its
 * socket (TCP_NODELAY), an echo thread blocked in {@code read} (as the gateway waits in its selector) writes it back,
 * and the client reads it with a non-blocking read. The gateway's p50 is judged against this one's.
 */
final class ClientTcpFloorVariant implements LatencyVariant {
    private LoopbackEcho echo;
    private SpscLongRing dueTimes;

    @Override
    public String name() {
        return "floor-tcp-client";
    }

    @Override
    public String description() {
        return "raw loopback TCP client -> server -> client round trip: due time over a ring to the client (the"
                + " reader), write, echo thread blocked in read, non-blocking read of the echo by the client";
    }

    @Override
    public void init(final Path directory, final int length) {
        echo = new LoopbackEcho(length, "tcp-client-floor-echo");
        dueTimes = new SpscLongRing(1 << 16);
    }

    @Override
    public void openReader() {
        // the reader is the client: it writes what the ring hands it and reads the echo
    }

    @Override
    public void send(final long startTimeNs) {
        dueTimes.put(startTimeNs);
    }

    @Override
    public long receive() {
        final long due = dueTimes.poll();
        if (due != SpscLongRing.EMPTY) {
            echo.write(due);
        }
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
