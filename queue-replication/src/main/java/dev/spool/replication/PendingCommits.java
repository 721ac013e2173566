package dev.spool.replication;

import dev.spool.replication.protocol.CommitFlyweight;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.source.ReplicaAcks;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.function.Consumer;

import static dev.spool.replication.protocol.FrameDescriptor.COMMIT_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_COMMIT;

/**
 * The gateway's commits that wait for their {@link CommitStage}, in arrival order, and their COMMIT frames: each is
 * released, built in its client's send buffer and flushed once the queue's synced or acknowledged index reaches it.
 * At most {@code limit} wait at once (commits for a replica that never acknowledges would otherwise grow without
 * bound): the gateway refuses a publish that would need one more. The arrays grow up to the limit and are then
 * reused: a release allocates nothing. The gateway's thread only.
 */
final class PendingCommits {
    private static final Logger LOG = LoggerFactory.getLogger(PublishGateway.class);
    private final Path directory;
    private final CommitFlyweight commit = new CommitFlyweight();
    private final int limit;
    /** Told of a client found gone while its commits were sent: the gateway frees its slot at once. */
    private final Consumer<GatewayClient> onGone;
    /** Pending commits, in arrival order: client, sequence, index, stage. */
    private GatewayClient[] clients = new GatewayClient[64];
    private long[] sequences = new long[64];
    private long[] indices = new long[64];
    private int[] stages = new int[64];
    private int count;
    /** Clients with commits built since the last flush. */
    private GatewayClient[] toFlush = new GatewayClient[8];
    private int toFlushCount;

    /**
     * @param directory the gateway queue's directory, for the log.
     * @param limit     the most commits waiting at once.
     * @param onGone    closes a client found gone and frees its slot.
     */
    PendingCommits(final Path directory, final int limit, final Consumer<GatewayClient> onGone) {
        this.directory = directory;
        this.limit = limit;
        this.onGone = onGone;
    }

    /** @return true if {@code limit} commits wait: the gateway refuses a publish that needs one more. */
    boolean isFull() {
        return count == limit;
    }

    /** @return the most commits waiting at once. */
    int limit() {
        return limit;
    }

    /** @return how many commits wait. */
    int count() {
        return count;
    }

    /**
     * @param client      who published.
     * @param sequence the client's sequence.
     * @param index       the message's index.
     * @param stage       the ordinal of the {@link CommitStage} it waits for.
     * @throws IllegalStateException if {@link #isFull()}: the gateway checks before it appends.
     */
    void add(final GatewayClient client, final long sequence, final long index, final int stage) {
        if (count == limit) {
            throw new IllegalStateException("the gateway of " + directory + " holds maxPendingCommits=" + limit
                    + " commits already");
        }
        if (count == clients.length) {
            final int capacity = (int) Math.min(2L * count, limit);
            clients = Arrays.copyOf(clients, capacity);
            sequences = Arrays.copyOf(sequences, capacity);
            indices = Arrays.copyOf(indices, capacity);
            stages = Arrays.copyOf(stages, capacity);
        }
        clients[count] = client;
        sequences[count] = sequence;
        indices[count] = index;
        stages[count] = stage;
        count++;
    }

    /**
     * @param acks the source's acknowledgements, or null if the gateway has no source.
     * @return true if a commit waits for a sync: {@link CommitStage#SYNCED}, or an {@code _OR_SYNCED} stage while
     * its acknowledgement cannot come.
     */
    boolean needSync(final ReplicaAcks acks) {
        for (int i = 0; i < count; i++) {
            if (CommitStage.of(stages[i]).syncsNow(acks)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sends the commits whose stage is reached and flushes their clients; a client gone is closed, and its commits
     * are dropped.
     *
     * @param acks   the source's acknowledgements, or null if the gateway has no source.
     * @param synced the queue's last synced index.
     * @return how many commits were sent.
     */
    int release(final ReplicaAcks acks, final long synced) {
        int kept = 0;
        int released = 0;
        for (int i = 0; i < count; i++) {
            final long index = indices[i];
            final int stage = stages[i];
            final boolean done = CommitStage.of(stage).isReached(index, acks, synced);
            final GatewayClient client = clients[i];
            if (!client.connection.isAttached()) {
                continue;
            }
            if (done && send(client, sequences[i], index)) {
                released++;
            } else {
                clients[kept] = client;
                sequences[kept] = sequences[i];
                indices[kept] = index;
                stages[kept] = stage;
                kept++;
            }
        }
        for (int i = kept; i < count; i++) {
            clients[i] = null;
        }
        count = kept;
        for (int i = 0; i < toFlushCount; i++) {
            final GatewayClient client = toFlush[i];
            toFlush[i] = null;
            if (client.connection.isAttached()) {
                try {
                    flush(client.connection);
                } catch (IOException e) {
                    gone(client, e);
                }
            }
        }
        toFlushCount = 0;
        return released;
    }

    /**
     * Builds a COMMIT frame in the client's send buffer.
     *
     * @return false, and nothing is built, if the buffer has no room for it even after a flush: a burst of commits
     * to a client that reads them slower than they are released; the commit stays pending.
     */
    boolean sendCommit(final Connection client, final long sequence, final long index) throws IOException {
        if (client.sendRoom() < COMMIT_LENGTH && !client.flush()) {
            return false;
        }
        final int offset = client.beginFrame(TYPE_COMMIT);
        commit.wrap(client.send(), offset).sequence(sequence).index(index);
        client.endFrame(offset, COMMIT_LENGTH);
        return true;
    }

    /** Commits are small and clients read them: a client that stops reading is dropped, not waited for. */
    static void flush(final Connection client) throws IOException {
        if (!client.flush() && client.sendRoom() < COMMIT_LENGTH * 64) {
            throw new IOException("client " + client.peer() + " does not read its commits");
        }
    }

    /** Sends a released commit and remembers its client for the flush; a client gone is closed. */
    private boolean send(final GatewayClient client, final long sequence, final long index) {
        try {
            if (!sendCommit(client.connection, sequence, index)) {
                return false;
            }
        } catch (IOException e) {
            gone(client, e);
            return false;
        }
        int i = 0;
        while (i < toFlushCount && toFlush[i] != client) {
            i++;
        }
        if (i == toFlushCount) {
            if (toFlushCount == toFlush.length) {
                toFlush = Arrays.copyOf(toFlush, toFlushCount * 2);
            }
            toFlush[toFlushCount++] = client;
        }
        return true;
    }

    private void gone(final GatewayClient client, final IOException e) {
        LOG.info("publish gateway of {}: client {} gone: {}", directory, client.connection.peer(), e.toString());
        onGone.accept(client);
    }
}
