package dev.spool.replication;

import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.GrantFlyweight;
import dev.spool.replication.protocol.IdentifyFlyweight;
import dev.spool.replication.protocol.PublishFlyweight;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.IDENTIFY_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_GRANT;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_IDENTIFY;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_PUBLISH;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_READY;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A publish client played by a test over a blocking socket, to an insecure gateway: IDENTIFY with the epoch it
 * claims, then PUBLISH frames of any sequence and bytes, each answered by the frame that comes back.
 */
final class RawWriter implements AutoCloseable {
    final Socket socket;
    final long clientId;
    /** The epoch granted, or -1 if the IDENTIFY was refused. */
    final int epoch;
    /** The ERROR that refused the IDENTIFY, or null. */
    final ByteBuffer refusal;

    private RawWriter(final Socket socket, final long clientId, final int epoch, final ByteBuffer refusal) {
        this.socket = socket;
        this.clientId = clientId;
        this.epoch = epoch;
        this.refusal = refusal;
    }

    /** Connects as a new instance of the client id. */
    static RawWriter open(final InetSocketAddress gateway, final long clientId) throws IOException {
        return open(gateway, clientId, 0, 0, 0);
    }

    /** Connects as the instance holding {@code epoch}, which had {@code committed} committed and sent {@code sent}. */
    static RawWriter open(final InetSocketAddress gateway, final long clientId, final int epoch, final long committed,
                          final long sent) throws IOException {
        final Socket socket = new Socket(gateway.getAddress(), gateway.getPort());
        socket.setSoTimeout(30_000);
        assertEquals(TYPE_READY, Wire.type(Wire.read(socket)));
        final ByteBuffer identify = Wire.frame(IDENTIFY_LENGTH, TYPE_IDENTIFY);
        new IdentifyFlyweight().wrap(identify, 0).set(clientId, epoch, committed, sent);
        Wire.write(socket, identify);
        final ByteBuffer answer = Wire.read(socket);
        if (Wire.type(answer) == TYPE_ERROR) {
            return new RawWriter(socket, clientId, -1, answer);
        }
        assertEquals(TYPE_GRANT, Wire.type(answer));
        return new RawWriter(socket, clientId, new GrantFlyweight().wrap(answer, 0).epoch(), null);
    }

    /** @return the frame that answers a PUBLISH of {@code payload} at {@code sequence}, at WRITTEN. */
    ByteBuffer publish(final long sequence, final byte[] payload) throws IOException {
        final ByteBuffer frame = Wire.frame(PublishFlyweight.frameLength(payload.length), TYPE_PUBLISH);
        new PublishFlyweight().wrap(frame, 0).clientId(clientId).sequence(sequence)
                .stage(CommitStage.WRITTEN.ordinal()).payload(payload, 0, payload.length);
        Wire.write(socket, frame);
        return Wire.read(socket);
    }

    /** @return the text of an ERROR frame. */
    static String text(final ByteBuffer error) {
        assertEquals(TYPE_ERROR, Wire.type(error), "an ERROR frame");
        return new ErrorFlyweight().wrap(error, 0).message(error.capacity());
    }

    /** @return the code of an ERROR frame. */
    static int code(final ByteBuffer error) {
        assertEquals(TYPE_ERROR, Wire.type(error), "an ERROR frame");
        return new ErrorFlyweight().wrap(error, 0).code();
    }

    @Override
    public void close() throws IOException {
        socket.close();
    }
}
