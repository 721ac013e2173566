package dev.spool.failover;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for listeners that a test names before they listen (a node's sink in a child JVM, a member's gateway). A
 * port the kernel hands out for {@code bind(0)} lies in its ephemeral range, the same range it takes the local port
 * of every outgoing connection from: a relay's or a ZooKeeper client's connection made in between can take it, and
 * the listener then cannot bind. So these ports come from below that range, where no outgoing connection lands.
 */
final class Ports {
    private static final Path EPHEMERAL_RANGE = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
    /** The lowest port handed out: above the well-known and most registered services' ports. */
    private static final int LOWEST = 10_000;

    private Ports() {
    }

    /**
     * @return a port on the loopback address that nothing listens on now, outside the kernel's ephemeral range.
     * @throws IOException if none is found in 1,000 tries.
     */
    static int free() throws IOException {
        final int below = ephemeralStart();
        for (int attempt = 0; attempt < 1_000; attempt++) {
            final int port = ThreadLocalRandom.current().nextInt(LOWEST, below);
            try (ServerSocket socket = new ServerSocket()) {
                socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1);
                return port;
            } catch (IOException e) {
                // taken: try another
            }
        }
        throw new IOException("no free port on the loopback address from " + LOWEST + " to " + below);
    }

    /** @return the first port of the kernel's ephemeral range (32768 where it cannot be read). */
    private static int ephemeralStart() {
        try {
            final int start = Integer.parseInt(
                    Files.readString(EPHEMERAL_RANGE, StandardCharsets.US_ASCII).trim().split("\\s+")[0]);
            return start > LOWEST + 1_000 ? start : 32_768;
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
