package dev.spool.replication;

import dev.spool.replication.protocol.BufferBudget;
import dev.spool.replication.protocol.Connection;
import java.net.InetAddress;

/**
 * One client connection of a {@link PublishGateway}: its {@link Connection}, how far its authentication went, and
 * when it was accepted (for the handshake timeout). Its buffers start small and grow to what it sends once it has
 * proved the secret (or at once, on an insecure gateway), within the gateway's {@link BufferBudget}. The gateway's
 * thread only.
 */
final class GatewayClient {
    /** Expects CLIENT_HELLO. */
    static final int AWAIT_HELLO = 0;
    /** Has sent CHALLENGE, expects PROOF. */
    static final int AWAIT_PROOF = 1;
    /** Authenticated (or on an insecure gateway): PUBLISH frames. */
    static final int OPEN = 2;

    final Connection connection;
    /** The client's remote address, for the gateway's cap of connections per address. */
    final InetAddress address;
    /** Where the client sits in the gateway's table, for the sweep of timeouts. */
    final int slot;
    final long acceptedNs;
    int state;
    /** CLIENT_HELLO and CHALLENGE, for the PROOF's MAC; null once open. */
    byte[][] handshake;
    /** The client id's writer state once the client identified itself, on a gateway that deduplicates; else null. */
    Writers.Writer writer;
    /** The writer epoch the connection publishes under; 0 until granted. */
    int epoch;

    GatewayClient(final Connection connection, final InetAddress address, final int slot, final long acceptedNs,
                  final int state) {
        this.connection = connection;
        this.address = address;
        this.slot = slot;
        this.acceptedNs = acceptedNs;
        this.state = state;
    }
}
