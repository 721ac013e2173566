package dev.spool.replication.sink;

import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.replication.protocol.AuthenticationException;
import dev.spool.replication.protocol.ClientHandshake;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.FetchFlyweight;
import dev.spool.replication.protocol.FrameException;
import dev.spool.replication.protocol.FrameMac;
import net.openhft.chronicle.bytes.BytesStore;

import java.io.IOException;
import java.nio.file.Path;

import static dev.spool.replication.protocol.FrameDescriptor.DATA_FLAG_CRC32C;
import static dev.spool.replication.protocol.FrameDescriptor.ENTRY_HEADER_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_AUTHENTICATION;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_FETCH;
import static dev.spool.replication.protocol.FrameDescriptor.FETCH_FRAME_LIMIT;
import static dev.spool.replication.protocol.FrameDescriptor.MAX_FETCH_EXCERPTS;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_DATA;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_FETCH;
import static dev.spool.replication.protocol.FrameDescriptor.typeName;
import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * The sink's side of a repairer's connection: the repairer proves the shared secret (CLIENT_HELLO, CHALLENGE,
 * PROOF under the repair labels, {@link ClientHandshake#REPAIR}) before the sink reads anything of the replica or
 * grows any buffer; then each FETCH is answered with one DATA frame of the replica's stored bodies from the range's
 * first index, or refused with an ERROR naming the range. A repairer is not a source: it never takes the replica,
 * so the source streaming to it does not make it busy, and it never writes. Runs on the sink's thread; a repair is
 * an operator's action, so allocation is fine here.
 */
final class FetchService implements ExcerptHandler {
    private final Path directory;
    private final ReplicaWriter replica;
    private final byte[] secret;
    private final FetchFlyweight fetch = new FetchFlyweight();
    private final DataFlyweight data = new DataFlyweight();
    private Connection connection;
    private int entry;
    private int end;
    private int count;
    private long toIndex;
    private boolean full;

    /**
     * @param directory the replica's directory, for messages.
     * @param replica   the sink's replica, read only.
     * @param secret    the shared secret, or null on an insecure sink.
     */
    FetchService(final Path directory, final ReplicaWriter replica, final byte[] secret) {
        this.directory = directory;
        this.replica = replica;
        this.secret = secret;
    }

    /**
     * Answers the repairer's CLIENT_HELLO the connection holds with a CHALLENGE.
     *
     * @return the frames so far, for {@link #onProof}.
     */
    byte[][] onHello(final Connection c) throws FrameException {
        return ClientHandshake.challenge(c, secret, ClientHandshake.REPAIR);
    }

    /**
     * Checks the repairer's PROOF; once it proved the secret, every later frame both ways carries the session's MAC.
     *
     * @param sent what {@link #onHello} returned.
     * @throws Refusal if the repairer did not prove the secret: nothing of the replica is told.
     */
    void onProof(final Connection c, final byte[][] sent) throws IOException, Refusal {
        try {
            ClientHandshake.checkProof(c, secret, sent, ClientHandshake.REPAIR);
        } catch (AuthenticationException e) {
            throw new Refusal(ERROR_AUTHENTICATION, e.getMessage()
                    + "; nothing it asks for is sent");
        }
    }

    /**
     * Answers the FETCH the connection holds with one DATA frame of the replica's stored bodies from its first index
     * on, as many as fit in {@value dev.spool.replication.protocol.FrameDescriptor#FETCH_FRAME_LIMIT} bytes (or the
     * first alone).
     *
     * @throws FrameException if the frame is not a FETCH, or comes before the answer to the last one was sent.
     * @throws Refusal        naming the range, if the replica does not hold it, or it is not of one cycle or too
     *                        long, or the replica's copy cannot be read.
     */
    void onFetch(final Connection c) throws IOException, Refusal {
        if (c.frameType() != TYPE_FETCH) {
            throw new FrameException(typeName(c.frameType()) + " frame from the repairer at " + c.peer() + " where "
                    + typeName(TYPE_FETCH) + " was expected");
        }
        if (!c.sendIdle()) {
            throw new FrameException("FETCH frame from the repairer at " + c.peer() + " before the answer to its last"
                    + " one was read");
        }
        fetch.wrap(c.received(), c.frameOffset());
        final long from = fetch.fromIndex();
        final long to = fetch.toIndex();
        final SpoolQueue queue = replica.queue();
        final RollCycle rollCycle = queue == null ? null : queue.rollCycle();
        final String range = IndexFormat.format(from, rollCycle) + ".." + IndexFormat.format(to, rollCycle);
        if (queue == null || queue.lastIndex() < 0) {
            throw refusal(c, range, "the replica holds no excerpt yet");
        }
        if (!fetch.queueId().equals(queue.queueId())) {
            throw refusal(c, range, "the repairer's queue has queue id " + fetch.queueId() + ", the replica's is "
                    + queue.queueId() + ": another queue, not a copy");
        }
        if (from < 0 || to < from) {
            throw refusal(c, range, "not a range of indices");
        }
        if (rollCycle.toCycle(from) != rollCycle.toCycle(to)) {
            throw refusal(c, range, "not of one cycle: ask for each cycle's part apart");
        }
        if (to - from >= MAX_FETCH_EXCERPTS) {
            throw refusal(c, range, (to - from + 1) + " indices, more than the " + MAX_FETCH_EXCERPTS
                    + " one FETCH may name: ask in parts");
        }
        if (from < queue.firstIndex() || to > queue.lastIndex()) {
            throw refusal(c, range, "the replica holds " + IndexFormat.format(queue.firstIndex(), rollCycle) + ".."
                    + IndexFormat.format(queue.lastIndex(), rollCycle));
        }
        final long largest = DataFlyweight.largestFrameLength(FETCH_FRAME_LIMIT, queue.maxMessageLength(),
                queue.unwrap(QueueInternals.class).features()) + (secret == null ? 0 : FrameMac.TAG_LENGTH);
        c.sendCapacity((int) largest);
        final int offset = c.beginFrame(TYPE_DATA);
        data.wrap(c.send(), offset).count(0).flags(DATA_FLAG_CRC32C);
        connection = c;
        entry = data.firstEntry();
        // past the limit only the first excerpt may go, which the buffer is sized for
        end = offset + FETCH_FRAME_LIMIT;
        count = 0;
        toIndex = to;
        full = false;
        try (ExcerptTailer bodies = queue.unwrap(QueueInternals.class).createBodyTailer()) {
            if (!bodies.moveToIndex(from)) {
                throw refusal(c, range, "the replica has no excerpt at " + IndexFormat.format(from, rollCycle));
            }
            while (!full && bodies.index() <= to && bodies.read(this)) {
                // each read appends one entry, or finds the frame full
            }
        } catch (SpoolException e) {
            throw refusal(c, range, "the replica's copy cannot be read: " + e.getMessage());
        } finally {
            connection = null;
        }
        if (count == 0) {
            throw refusal(c, range, "the replica has no excerpt at " + IndexFormat.format(from, rollCycle));
        }
        data.wrap(c.send(), offset).count(count).flags(DATA_FLAG_CRC32C);
        c.endFrame(offset, entry - offset);
    }

    @Override
    public void onExcerpt(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
        if (index > toIndex || (count > 0 && entry + ENTRY_HEADER_LENGTH + length > end)) {
            full = true;
            return;
        }
        final int at = entry;
        entry = data.putEntry(at, index, length);
        MEMORY.copyMemory(bytes.addressForRead(offset), connection.sendAddress() + data.entryPayload(at), (long) length);
        count++;
    }

    private Refusal refusal(final Connection c, final String range, final String why) {
        return new Refusal(ERROR_FETCH, "the replica " + directory + " cannot send " + range + " to the"
                + " repairer at " + c.peer() + ": " + why);
    }
}
