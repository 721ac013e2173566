package dev.spool.replication;

import dev.spool.queue.internal.TermHistory;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.FrameHeader;
import dev.spool.replication.protocol.FrameMac;
import dev.spool.replication.protocol.Handshake;
import dev.spool.replication.protocol.HelloFlyweight;
import dev.spool.replication.protocol.ResumeFlyweight;
import dev.spool.replication.protocol.StartFlyweight;
import dev.spool.replication.protocol.WelcomeFlyweight;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

import static dev.spool.replication.protocol.FrameDescriptor.*;
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

    /**
     * Plays a genuine sink's side of the handshake with the tests' secret: reads HELLO, sends WELCOME, reads START and
     * sends RESUME with these values; the source's session starts after it.
     */
    static void resume(final Socket socket, final long lastIndex, final long checksum, final long term)
            throws IOException {
        final ByteBuffer helloFrame = read(socket);
        assertEquals(TYPE_HELLO, type(helloFrame));
        final byte[] hello = bytes(helloFrame, HELLO_LENGTH);
        final ByteBuffer welcome = frame(WELCOME_LENGTH, TYPE_WELCOME);
        new WelcomeFlyweight().wrap(welcome, 0).nonce(Handshake.nonce())
                .mac(Handshake.mac(SECRET, Handshake.SINK_LABEL, hello, bytes(welcome, WELCOME_MAC_OFFSET)));
        write(socket, welcome);
        final ByteBuffer start = read(socket);
        assertEquals(TYPE_START, type(start));
        final ByteBuffer resume = frame(resumeLength(1), TYPE_RESUME);
        new ResumeFlyweight().wrap(resume, 0).lastIndex(lastIndex).checksum(checksum).term(term)
                .termHistory(TermHistory.of(term))
                .mac(Handshake.mac(SECRET, Handshake.RESUME_LABEL, hello, bytes(welcome, WELCOME_LENGTH),
                        bytes(start, start.getInt(0)), bytes(resume, resumeMacOffset(1))));
        write(socket, resume);
    }

    /** The source's side of a genuine handshake, played over a blocking socket with the tests' secret. */
    static final class Session {
        final byte[] hello;
        final byte[] start;
        /** The sink's last index, as its RESUME said. */
        final long sinkLast;
        final FrameMac mac = new FrameMac();
        /** Checks the sink's frames of the session. */
        final FrameMac sinkMac = new FrameMac();

        private Session(final byte[] hello, final byte[] start, final long sinkLast, final byte[] key,
                        final byte[] sinkKey) {
            this.hello = hello;
            this.start = start;
            this.sinkLast = sinkLast;
            mac.key(key);
            sinkMac.key(sinkKey);
        }

        /**
         * Plays the source's side of the handshake up to RESUME; the sink opens its replica at the session's first
         * frame, which the test sends.
         */
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
            final ByteBuffer startFrame = frame(startLength(1), TYPE_START);
            final StartFlyweight start = new StartFlyweight().wrap(startFrame, 0).termHistory(TermHistory.of(0));
            start.mac(Handshake.mac(SECRET, Handshake.SOURCE_LABEL, hello, bytes(welcomeFrame, WELCOME_LENGTH),
                    bytes(startFrame, startMacOffset(1))));
            write(socket, startFrame);
            final ByteBuffer resumeFrame = read(socket);
            assertEquals(TYPE_RESUME, type(resumeFrame));
            return new Session(hello, bytes(startFrame, startLength(1)), new ResumeFlyweight().wrap(resumeFrame, 0)
                    .lastIndex(), Handshake.sessionKey(SECRET, Handshake.SOURCE_FRAMES_LABEL, sourceNonce,
                    welcome.nonce()), Handshake.sessionKey(SECRET, Handshake.SINK_FRAMES_LABEL, sourceNonce,
                    welcome.nonce()));
        }

        /** @return a HEARTBEAT with its MAC, the next frame of the session. */
        ByteBuffer heartbeat() {
            return sealed(frame(HEARTBEAT_LENGTH, TYPE_HEARTBEAT), mac);
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

    /** A HELLO as an attacker may send it: every field well formed, the roll and queue id of its choosing. */
    static ByteBuffer hello(final SpoolQueue queue, final java.util.UUID queueId) {
        final ByteBuffer hello = frame(HELLO_LENGTH, TYPE_HELLO);
        new HelloFlyweight().wrap(hello, 0).magic(MAGIC).rollCycleId(queue.rollCycle().id()).queueId(queueId)
                .epochMillis(queue.epochMillis()).term(0).lastIndex(queue.lastIndex())
                .maxMessageLength(queue.maxMessageLength()).frameLimit(4096).nonce(Handshake.nonce());
        return hello;
    }
}
