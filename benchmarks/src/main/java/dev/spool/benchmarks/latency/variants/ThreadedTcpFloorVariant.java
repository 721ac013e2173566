package dev.spool.benchmarks.latency.variants;

import java.nio.file.Path;

/**
 * The floor of a replication source on its own thread: a raw loopback TCP round trip with the source's thread
 * hand-offs. JLBH's thread hands the start time over an in-memory {@link SpscLongRing} (as an append reaches the
 * source's tailer) to a relay thread, which writes the message to a socket (TCP_NODELAY); an echo thread, blocked
 * in {@code read} (as the sink waits in its selector), writes it back; the relay, reading the socket between its
 * polls of the ring (as the source reads acknowledgements), hands the start time over a second ring (as the source
 * records the ack in the queue's metadata) to the reader, which busy-spins on it. So: writer, relay, socket, echo,
 * socket, relay, reader: the hops of {@code e3-acked} and {@code spool-replicated} with none of their work. The relay
 * busy-spins: the floor of any idle strategy.
 */
final class ThreadedTcpFloorVariant implements LatencyVariant {
    private static final int RING_CAPACITY = 1 << 16;
    private LoopbackEcho echo;
    private SpscLongRing toRelay;
    private SpscLongRing toReader;
    private Thread relay;
    private volatile boolean running;

    @Override
    public String name() {
        return "floor-tcp-threaded";
    }

    @Override
    public String description() {
        return "raw loopback TCP round trip with a threaded source's hand-offs: writer -> relay thread (ring) -> socket"
                + " -> echo thread blocked in read -> socket -> relay thread -> reader (ring); the relay busy-spins";
    }

    @Override
    public int spinningThreads() {
        return 3;
    }

    @Override
    public void init(final Path directory, final int length) {
        echo = new LoopbackEcho(length, "tcp-threaded-floor-echo");
        toRelay = new SpscLongRing(RING_CAPACITY);
        toReader = new SpscLongRing(RING_CAPACITY);
        running = true;
        relay = new Thread(this::relay, "tcp-threaded-floor-relay");
        relay.setDaemon(true);
        relay.start();
    }

    /** The relay's loop, like a source's duty cycle: send what was handed over, read what came back. */
    private void relay() {
        final LoopbackEcho echo = this.echo;
        final SpscLongRing toRelay = this.toRelay;
        final SpscLongRing toReader = this.toReader;
        while (running) {
            final long sent = toRelay.poll();
            if (sent != SpscLongRing.EMPTY) {
                echo.write(sent);
            }
            final long echoed = echo.read();
            if (echoed != NOTHING) {
                while (!toReader.offer(echoed) && running) {
                    Thread.onSpinWait();
                }
            }
        }
    }

    @Override
    public void openReader() {
        // the reader polls the relay's ring
    }

    @Override
    public void send(final long startTimeNs) {
        toRelay.put(startTimeNs);
    }

    @Override
    public long receive() {
        return toReader.poll();
    }

    @Override
    public void closeReader() {
        // the ring and the sockets close with the sending side
    }

    @Override
    public void close() {
        running = false;
        try {
            relay.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        echo.close();
    }
}
