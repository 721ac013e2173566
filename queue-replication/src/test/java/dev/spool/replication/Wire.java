package dev.spool.replication;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static dev.spool.replication.FrameDescriptor.HEADER_LENGTH;
import static dev.spool.replication.FrameDescriptor.VERSION;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A peer played by a test over a blocking socket: frames built and read with the codec's flyweights. */
final class Wire {
    private Wire() {
    }

    /** @return a heap frame of {@code length} bytes with its header stamped. */
    static ByteBuffer frame(final int length, final int type) {
        final ByteBuffer frame = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        new FrameHeader().wrap(frame, 0).encode(type).version(VERSION).frameLength(length);
        return frame;
    }

    /** @return the same frame, {@link FrameMac#TAG_LENGTH} bytes longer, with its MAC at its place in the session. */
    static ByteBuffer sealed(final ByteBuffer frame, final FrameMac mac) {
        final int length = frame.capacity();
        final ByteBuffer sealed = ByteBuffer.allocate(length + FrameMac.TAG_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        sealed.put(0, frame, 0, length);
        new FrameHeader().wrap(sealed, 0).frameLength(length + FrameMac.TAG_LENGTH);
        mac.sign(sealed, 0, length);
        return sealed;
    }

    static void write(final Socket socket, final ByteBuffer frame) throws IOException {
        final OutputStream out = socket.getOutputStream();
        out.write(frame.array(), 0, frame.capacity());
        out.flush();
    }

    /** @return the next whole frame from the socket; fails if the peer closed first. */
    static ByteBuffer read(final Socket socket) throws IOException {
        final InputStream in = socket.getInputStream();
        final byte[] header = in.readNBytes(HEADER_LENGTH);
        assertEquals(HEADER_LENGTH, header.length, "a frame, not the end of the stream");
        final int length = ByteBuffer.wrap(header).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        final ByteBuffer frame = ByteBuffer.allocate(length).order(ByteOrder.LITTLE_ENDIAN);
        frame.put(header).put(in.readNBytes(length - HEADER_LENGTH));
        return frame;
    }

    /** @return the frame's type. */
    static int type(final ByteBuffer frame) {
        return new FrameHeader().wrap(frame, 0).type();
    }

    /** Reads until the peer closes the connection. */
    static void awaitClosed(final Socket socket) throws IOException {
        final InputStream in = socket.getInputStream();
        final byte[] discard = new byte[4096];
        int read;
        do {
            read = in.read(discard);
        } while (read >= 0);
    }

    /** @return a copy of the frame's bytes. */
    static byte[] bytes(final ByteBuffer frame, final int length) {
        final byte[] bytes = new byte[length];
        frame.get(0, bytes);
        return bytes;
    }
}
