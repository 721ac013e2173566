package dev.spool.replication;

import dev.spool.queue.SpoolQueue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static dev.spool.replication.FrameDescriptor.*;
import static dev.spool.replication.Replicas.SECRET;
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

    /** The source's side of a genuine handshake, played over a blocking socket with the tests' secret. */
    static final class Session {
        final byte[] hello;
        final byte[] start;
        final FrameMac mac = new FrameMac();
        /** Checks the sink's frames of the session. */
        final FrameMac sinkMac = new FrameMac();

        private Session(final byte[] hello, final byte[] start, final byte[] key, final byte[] sinkKey) {
            this.hello = hello;
            this.start = start;
            mac.key(key);
            sinkMac.key(sinkKey);
        }

        static Session open(final Socket socket, final SpoolQueue primary) throws IOException {
            final ByteBuffer helloFrame = frame(HELLO_LENGTH, TYPE_HELLO);
            new HelloFlyweight().wrap(helloFrame, 0).magic(MAGIC).rollCycleId(primary.rollCycle().id())
                    .queueId(primary.queueId()).epochMillis(primary.epochMillis()).term(0)
                    .maxMessageLength(primary.maxMessageLength()).frameLimit(4096).nonce(Handshake.nonce());
            new HelloFlyweight().wrap(helloFrame, 0).lastIndex(-1);
            final byte[] hello = bytes(helloFrame, HELLO_LENGTH);
            final byte[] sourceNonce = new HelloFlyweight().wrap(helloFrame, 0).nonce();
            write(socket, helloFrame);
            final ByteBuffer welcomeFrame = read(socket);
            assertEquals(TYPE_WELCOME, type(welcomeFrame));
            final WelcomeFlyweight welcome = new WelcomeFlyweight().wrap(welcomeFrame, 0);
            final long last = welcome.lastIndex();
            final ByteBuffer startFrame = frame(START_LENGTH, TYPE_START);
            final StartFlyweight start = new StartFlyweight().wrap(startFrame, 0).resumeAfter(last);
            start.mac(Handshake.mac(SECRET, Handshake.SOURCE_LABEL, hello, bytes(welcomeFrame, WELCOME_LENGTH),
                    bytes(startFrame, START_MAC_OFFSET)));
            write(socket, startFrame);
            return new Session(hello, bytes(startFrame, START_LENGTH), Handshake.sessionKey(SECRET,
                    Handshake.SOURCE_FRAMES_LABEL, sourceNonce, welcome.nonce()), Handshake.sessionKey(SECRET,
                    Handshake.SINK_FRAMES_LABEL, sourceNonce, welcome.nonce()));
        }

        /** @return a DATA frame of one excerpt, without its MAC. */
        ByteBuffer plainData(final long index, final byte[] payload) {
            final ByteBuffer frame = frame((int) DataFlyweight.frameLength(payload.length), TYPE_DATA);
            final DataFlyweight data = new DataFlyweight().wrap(frame, 0).count(1);
            final int entry = data.firstEntry();
            data.putEntry(entry, index, payload.length);
            frame.put(data.entryPayload(entry), payload);
            return frame;
        }

        /** @return a DATA frame of one excerpt with its MAC, the next of the session. */
        ByteBuffer data(final long index, final byte[] payload) {
            return sealed(plainData(index, payload), mac);
        }
    }
}
