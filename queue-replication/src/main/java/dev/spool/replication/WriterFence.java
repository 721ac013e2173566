package dev.spool.replication;

import dev.spool.queue.internal.Crc32cOfMemory;
import dev.spool.queue.internal.PublisherAppender;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.nio.file.Path;

import static dev.spool.replication.protocol.FrameDescriptor.ERROR_IN_DOUBT;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_SEQUENCE;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_WRITER_FENCED;
import static dev.spool.replication.protocol.FrameDescriptor.MAX_PUBLISH_SEQUENCE;
import static dev.spool.replication.protocol.FrameDescriptor.MAX_WRITER_EPOCH;

/**
 * The gateway's rules of writer identity, after Kafka's idempotent producer: each new instance of a client id is
 * granted the id's next writer epoch, which fences the earlier ones (their connections are closed, their IDENTIFY and
 * PUBLISH refused); within an epoch, sequences run 1, 2, 3... without a gap; a publish sent again is answered with
 * its original's index only if its length and CRC-32C equal the original's; one whose original's state the gateway
 * no longer holds is refused as in doubt, never written twice. The epoch is stored with each excerpt's sequence
 * ({@link PublisherAppender#EPOCH_SHIFT}), so a gateway started on the queue, or on a replica promoted in its place,
 * learns it again from the queue's last excerpts. Allocates nothing on a publish but on the throw path. The gateway's
 * thread only.
 */
final class WriterFence {
    /** Shift of the epoch in the stored sequence. */
    static final int EPOCH_SHIFT = PublisherAppender.EPOCH_SHIFT;
    private static final Logger LOG = LoggerFactory.getLogger(PublishGateway.class);

    /** Closes a connection, telling it why. */
    @FunctionalInterface
    interface Dropper {
        void drop(GatewayClient client, int code, String message);
    }

    private final Writers writers;
    private final Path directory;
    private final Dropper dropper;
    private final Crc32cOfMemory crc = new Crc32cOfMemory();
    /** True if the gateway read the whole queue at start: an id it does not know never published into it. */
    private boolean wholeQueueRead;
    /** The CRC-32C of the payload {@link #admit} let through, for {@link #appended}. */
    private int admittedChecksum;

    WriterFence(final int maxWriters, final Path directory, final Dropper dropper) {
        this.writers = new Writers(maxWriters);
        this.directory = directory;
        this.dropper = dropper;
    }

    /** @return the table, for its counts. */
    Writers writers() {
        return writers;
    }

    /** Learns an excerpt read back at start, in index order. */
    void rebuilt(final long clientId, final long stored, final long index, final BytesStore<?, ?> payload,
                 final long offset, final int length) {
        final int epoch = (int) (stored >>> EPOCH_SHIFT);
        final long sequence = stored & PublisherAppender.SEQUENCE_MASK;
        final Writers.Writer writer = writers.open(clientId);
        if (epoch < writer.epoch) {
            return;
        }
        if (epoch > writer.epoch) {
            writer.begin(epoch, sequence - 1);
        }
        writer.record(sequence, index, length, crc.of(payload.addressForRead(offset), length));
    }

    /** @param wholeQueueRead true if the start read every excerpt of the queue. */
    void rebuildDone(final boolean wholeQueueRead) {
        this.wholeQueueRead = wholeQueueRead;
    }

    /**
     * An IDENTIFY: grants the connection its writer epoch.
     *
     * @param epoch     the epoch the client holds, 0 for a new instance.
     * @param committed the highest sequence committed to it with all below.
     * @param sent      the highest sequence it sent.
     * @return the epoch the connection publishes under.
     * @throws WriterException if the epoch held was fenced, or the id has had every epoch.
     */
    int identify(final GatewayClient client, final long clientId, final int epoch, final long committed,
                 final long sent) throws WriterException {
        final long forgotten = writers.forgotten(clientId);
        final boolean held = writers.find(clientId) != null;
        final Writers.Writer writer = writers.open(clientId);
        if (!held && Writers.isForgotten(forgotten)) {
            writer.begin((int) (forgotten >>> EPOCH_SHIFT), forgotten & PublisherAppender.SEQUENCE_MASK);
        }
        if (epoch == 0) {
            if (writer.epoch >= MAX_WRITER_EPOCH) {
                throw new WriterException(ERROR_SEQUENCE, String.format("client id 0x%x has had every writer epoch,"
                        + " up to %d, on %s: give this client another id", clientId, MAX_WRITER_EPOCH, directory));
            }
            fenceEarlier(writer, client, writer.epoch + 1);
            writer.begin(writer.epoch + 1, 0);
        } else if (epoch < writer.epoch) {
            throw fenced(clientId, epoch, writer.epoch);
        } else if (epoch > writer.epoch) {
            // granted by a gateway whose grant this queue does not show: nothing of the epoch was written here,
            // unless it was before what the gateway read at start, and then what the client sends again is in doubt
            final boolean known = held || Writers.isForgotten(forgotten) || wholeQueueRead;
            fenceEarlier(writer, client, epoch);
            writer.begin(epoch, known ? committed : Math.max(committed, sent));
        } else {
            if (writer.last > sent) {
                throw new WriterException(ERROR_WRITER_FENCED, String.format("client id 0x%x epoch %d: %s holds its"
                        + " sequence %d, but this client sent no sequence past %d: another instance holds the epoch",
                        clientId, epoch, directory, writer.last, sent));
            }
            takeOver(writer, client);
            if (committed > writer.last) {
                LOG.warn("publish gateway of {}: client id 0x{} epoch {} resumed with sequences {} to {} committed,"
                        + " of which {} holds none past {}: they were committed at a stage below ACKED_BY_QUORUM and"
                        + " are missing here", directory, Long.toHexString(clientId), epoch, writer.heldFrom,
                        committed, directory, writer.last);
                writer.last = committed;
            }
        }
        writer.client = client;
        client.writer = writer;
        client.epoch = writer.epoch;
        return writer.epoch;
    }

    /**
     * A PUBLISH of the client's identified writer: checks its sequence against the epoch's.
     *
     * @param address where its payload is.
     * @return the original's index if it is a re-send of the same bytes; -1 if it is to be appended.
     * @throws WriterException if the epoch was fenced, the sequence is out of range or leaves a gap, or it is a
     *                         re-send of other bytes, or of a publish whose state the gateway no longer holds.
     */
    long admit(final GatewayClient client, final long sequence, final long address, final int length)
            throws WriterException {
        Writers.Writer writer = client.writer;
        if (writer.forgotten) {
            writer = reopen(client);
        }
        final int epoch = client.epoch;
        if (writer.epoch != epoch) {
            throw fenced(writer.clientId, epoch, writer.epoch);
        }
        if (sequence < 1 || sequence > MAX_PUBLISH_SEQUENCE) {
            throw new WriterException(ERROR_SEQUENCE, String.format("client id 0x%x epoch %d sent sequence %d, where"
                    + " %d was expected (sequences run from 1 to %d): not written to %s", writer.clientId, epoch,
                    sequence, writer.last + 1, MAX_PUBLISH_SEQUENCE, directory));
        }
        final int checksum = crc.of(address, length);
        if (sequence <= writer.last) {
            final int slot = writer.slotOf(sequence);
            if (slot < 0) {
                throw new WriterException(ERROR_IN_DOUBT, String.format("client id 0x%x epoch %d sent sequence %d"
                        + " again, but %s no longer holds its state (it holds the sequences of the id's last %d"
                        + " publishes, and of at most maxPublishers ids): in doubt, not written again", writer.clientId,
                        epoch, sequence, directory, PublishClient.WINDOW));
            }
            if (writer.length(slot) != length || writer.checksum(slot) != checksum) {
                throw new WriterException(ERROR_SEQUENCE, String.format("client id 0x%x epoch %d sent sequence %d"
                        + " again with %d bytes of CRC-32C 0x%08x, but the original at index 0x%x of %s has %d bytes"
                        + " of CRC-32C 0x%08x: not written, not acknowledged", writer.clientId, epoch, sequence,
                        length, checksum, writer.index(slot), directory, writer.length(slot), writer.checksum(slot)));
            }
            return writer.index(slot);
        }
        if (sequence != writer.last + 1) {
            throw new WriterException(ERROR_SEQUENCE, String.format("client id 0x%x epoch %d sent sequence %d where"
                    + " %d was expected: a gap, not written to %s", writer.clientId, epoch, sequence, writer.last + 1,
                    directory));
        }
        admittedChecksum = checksum;
        return -1;
    }

    /** @return the stored sequence of an admitted publish: its epoch and sequence. */
    static long stored(final GatewayClient client, final long sequence) {
        return (long) client.epoch << EPOCH_SHIFT | sequence;
    }

    /** Records the publish {@link #admit} let through, appended at {@code index}. */
    void appended(final GatewayClient client, final long sequence, final long index, final int length) {
        final Writers.Writer writer = client.writer;
        writer.record(sequence, index, length, admittedChecksum);
        writers.touch(writer);
    }

    /** The client's writer was forgotten past the table's limit, while it was connected: its entry again. */
    private Writers.Writer reopen(final GatewayClient client) {
        final long clientId = client.writer.clientId;
        Writers.Writer writer = writers.find(clientId);
        if (writer == null) {
            final long forgotten = writers.forgotten(clientId);
            writer = writers.open(clientId);
            writer.begin((int) (forgotten >>> EPOCH_SHIFT), forgotten & PublisherAppender.SEQUENCE_MASK);
            writer.client = client;
        }
        client.writer = writer;
        return writer;
    }

    private WriterException fenced(final long clientId, final int epoch, final int laterEpoch) {
        return new WriterException(ERROR_WRITER_FENCED, String.format("client id 0x%x epoch %d was fenced by epoch %d,"
                + " granted to a later instance of the id by %s: nothing more of epoch %d is written", clientId, epoch,
                laterEpoch, directory, epoch));
    }

    /** A new epoch for the id: the connection of an earlier one still open is told it is fenced, and closed. */
    private void fenceEarlier(final Writers.Writer writer, final GatewayClient client, final int epoch) {
        final GatewayClient earlier = writer.client;
        writer.client = client;
        if (earlier != null && earlier != client && earlier.connection.isAttached()) {
            LOG.info("publish gateway of {}: client id 0x{} epoch {} from {} fences epoch {} from {}", directory,
                    Long.toHexString(writer.clientId), epoch, client.connection.peer(), earlier.epoch,
                    earlier.connection.peer());
            dropper.drop(earlier, ERROR_WRITER_FENCED, fenced(writer.clientId, earlier.epoch, epoch).getMessage());
        }
    }

    /** The same epoch on a new connection, as after a lost one: an earlier one still open under it is closed. */
    private void takeOver(final Writers.Writer writer, final GatewayClient client) {
        final GatewayClient earlier = writer.client;
        writer.client = client;
        if (earlier != null && earlier != client && earlier.connection.isAttached()) {
            LOG.info("publish gateway of {}: client id 0x{} epoch {} now publishes from {}: closing its connection"
                    + " from {}", directory, Long.toHexString(writer.clientId), writer.epoch,
                    client.connection.peer(), earlier.connection.peer());
            dropper.drop(earlier, ERROR_SEQUENCE, String.format("client id 0x%x epoch %d was taken over by a"
                    + " connection from %s", writer.clientId, writer.epoch, client.connection.peer()));
        }
    }
}
