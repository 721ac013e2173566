package dev.spool.replication;

import dev.spool.replication.protocol.Connection;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static dev.spool.replication.protocol.FrameDescriptor.ERROR_IN_DOUBT;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_SEQUENCE;
import static dev.spool.replication.protocol.FrameDescriptor.ERROR_WRITER_FENCED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The rules of writer identity alone, on histories no socket test reaches quickly. */
class WriterFenceTest {
    private static final Path QUEUE = Path.of("/queue");
    private final List<Connection> connections = new ArrayList<>();
    private final ByteBuffer payload = ByteBuffer.allocateDirect(64);
    private final long address = net.openhft.chronicle.core.Jvm.address(payload);

    @AfterEach
    void closeConnections() {
        connections.forEach(Connection::close);
    }

    private GatewayClient client() {
        final Connection connection = new Connection(SystemNanoClock.INSTANCE, 64, 64);
        connections.add(connection);
        return new GatewayClient(connection, InetAddress.getLoopbackAddress(), 0, 0, GatewayClient.OPEN);
    }

    private static WriterFence fence(final int maxWriters) {
        return new WriterFence(maxWriters, QUEUE, (client, code, message) -> { });
    }

    /** Admits and appends {@code sequence} at {@code index}. */
    private void append(final WriterFence fence, final GatewayClient client, final long sequence, final long index)
            throws WriterException {
        payload.put(0, (byte) sequence);
        assertEquals(-1, fence.admit(client, sequence, address, 8));
        fence.appended(client, sequence, index, 8);
    }

    @Test
    void shouldGrantEachNewInstanceTheNextEpochAndFenceTheEarlierOnes() throws WriterException {
        final WriterFence fence = fence(16);
        final GatewayClient first = client();
        assertEquals(1, fence.identify(first, 7, 0, 0, 0));
        append(fence, first, 1, 100);
        final GatewayClient second = client();
        assertEquals(2, fence.identify(second, 7, 0, 0, 0));
        append(fence, second, 1, 101);
        final WriterException late = assertThrows(WriterException.class, () -> fence.admit(first, 2, address, 8));
        assertEquals(ERROR_WRITER_FENCED, late.code());
        assertTrue(late.getMessage().startsWith("client id 0x7 epoch 1 was fenced by epoch 2"), late.getMessage());
        final WriterException back = assertThrows(WriterException.class,
                () -> fence.identify(client(), 7, 1, 1, 2));
        assertEquals(ERROR_WRITER_FENCED, back.code());
    }

    @Test
    void shouldRefuseAnInstanceThatClaimsAnEpochWhoseQueueHoldsMoreThanItSent() throws WriterException {
        final WriterFence fence = fence(16);
        final GatewayClient writer = client();
        fence.identify(writer, 8, 0, 0, 0);
        for (long sequence = 1; sequence <= 3; sequence++) {
            append(fence, writer, sequence, 200 + sequence);
        }
        final WriterException other = assertThrows(WriterException.class, () -> fence.identify(client(), 8, 1, 0, 2));
        assertEquals(ERROR_WRITER_FENCED, other.code());
        assertTrue(other.getMessage().contains("holds its sequence 3, but this client sent no sequence past 2"),
                other.getMessage());
    }

    @Test
    void shouldTakeAResendAsInDoubtWhenTheEpochWasGrantedWhereThisQueueDoesNotShowIt() throws WriterException {
        final WriterFence fence = fence(16);
        fence.rebuildDone(false);
        final GatewayClient writer = client();
        // epoch 4 granted by a gateway of which this queue shows nothing, which read only the queue's last excerpts
        assertEquals(4, fence.identify(writer, 9, 4, 2, 5));
        final WriterException resend = assertThrows(WriterException.class, () -> fence.admit(writer, 3, address, 8));
        assertEquals(ERROR_IN_DOUBT, resend.code());
        append(fence, writer, 6, 300);
        // the whole queue read: an epoch it does not show wrote nothing into it, and the re-sends are written
        final WriterFence whole = fence(16);
        whole.rebuildDone(true);
        final GatewayClient again = client();
        assertEquals(4, whole.identify(again, 9, 4, 2, 5));
        append(whole, again, 3, 400);
    }

    @Test
    void shouldKeepTheEpochAndLastSequenceOfAnIdForgottenPastTheLimit() throws WriterException {
        final WriterFence fence = fence(2);
        final GatewayClient early = client();
        assertEquals(1, fence.identify(early, 10, 0, 0, 0));
        append(fence, early, 1, 500);
        append(fence, early, 2, 501);
        fence.identify(client(), 11, 0, 0, 0);
        fence.identify(client(), 12, 0, 0, 0);
        assertEquals(1, fence.writers().forgottenCount());
        // the connection still open under the forgotten id: its re-send is in doubt, its next sequence follows
        final WriterException resend = assertThrows(WriterException.class, () -> fence.admit(early, 2, address, 8));
        assertEquals(ERROR_IN_DOUBT, resend.code());
        final WriterException gap = assertThrows(WriterException.class, () -> fence.admit(early, 4, address, 8));
        assertEquals(ERROR_SEQUENCE, gap.code());
        append(fence, early, 3, 502);
        fence.identify(client(), 13, 0, 0, 0);
        fence.identify(client(), 14, 0, 0, 0);
        assertEquals(2, fence.identify(client(), 10, 0, 0, 0), "a new instance of a forgotten id: the next epoch");
    }

    @Test
    void shouldRefuseAnIdThatHasHadEveryEpoch() throws WriterException {
        final WriterFence fence = fence(16);
        assertEquals(65_535, fence.identify(client(), 15, 65_535, 0, 0));
        final WriterException spent = assertThrows(WriterException.class, () -> fence.identify(client(), 15, 0, 0, 0));
        assertEquals(ERROR_SEQUENCE, spent.code());
        assertTrue(spent.getMessage().contains("has had every writer epoch, up to 65535"), spent.getMessage());
    }
}
