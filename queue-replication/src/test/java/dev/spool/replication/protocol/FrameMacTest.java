package dev.spool.replication.protocol;

import org.junit.jupiter.api.Test;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/** The per-frame MAC: HMAC-SHA256 as javax.crypto computes it, bound to the frame's place, and free of allocation. */
class FrameMacTest {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    @Test
    void shouldComputeTheHmacSha256OfTheSequenceAndTheFrameAsJavaxCryptoDoes() throws Exception {
        final Random random = new Random(13);
        final byte[] key = new byte[32];
        random.nextBytes(key);
        final Mac reference = Mac.getInstance("HmacSHA256");
        reference.init(new SecretKeySpec(key, "HmacSHA256"));
        final FrameMac mac = new FrameMac();
        mac.key(key);
        for (final int length : new int[] {8, 63, 64, 65, 4095, 4096, 4097, 10_000}) {
            final ByteBuffer frame = ByteBuffer.allocateDirect(length + FrameMac.TAG_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            final byte[] bytes = new byte[length];
            random.nextBytes(bytes);
            frame.put(0, bytes);
            final long sequence = mac.sequence();
            mac.sign(frame, 0, length);
            final byte[] sequenceBytes = ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, sequence).array();
            reference.update(sequenceBytes);
            reference.update(bytes);
            final byte[] expected = Arrays.copyOf(reference.doFinal(), FrameMac.TAG_LENGTH);
            final byte[] tag = new byte[FrameMac.TAG_LENGTH];
            frame.get(length, tag);
            assertArrayEquals(expected, tag, "frame of " + length + " bytes");
        }
    }

    @Test
    void shouldRefuseAFrameReplayedReorderedOrAltered() {
        final byte[] key = new byte[32];
        key[0] = 1;
        final FrameMac sender = new FrameMac();
        final FrameMac receiver = new FrameMac();
        sender.key(key);
        receiver.key(key);
        final ByteBuffer first = frame(100, (byte) 1);
        final ByteBuffer second = frame(100, (byte) 2);
        sender.sign(first, 0, 100);
        sender.sign(second, 0, 100);
        assertFalse(receiver.verify(second, 0, 100), "reordered: the second frame first");
        assertTrue(receiver.verify(first, 0, 100));
        assertFalse(receiver.verify(first, 0, 100), "replayed");
        second.put(50, (byte) 99);
        assertFalse(receiver.verify(second, 0, 100), "altered");
        final FrameMac otherSession = new FrameMac();
        otherSession.key(new byte[32]);
        final ByteBuffer injected = frame(100, (byte) 3);
        otherSession.sign(injected, 0, 100);
        otherSession.sign(injected, 0, 100);
        assertFalse(receiver.verify(injected, 0, 100), "signed under another key");
    }

    @Test
    void shouldAllocateNothingPerFrame() {
        final FrameMac sender = new FrameMac();
        final FrameMac receiver = new FrameMac();
        sender.key(new byte[32]);
        receiver.key(new byte[32]);
        final ByteBuffer frame = ByteBuffer.allocateDirect(4096 + FrameMac.TAG_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < 50_000; i++) {
            sender.sign(frame, 0, 40 + i % 4000);
            assertTrue(receiver.verify(frame, 0, 40 + i % 4000));
        }
        final long before = THREADS.getCurrentThreadAllocatedBytes();
        boolean all = true;
        for (int i = 0; i < 100_000; i++) {
            sender.sign(frame, 0, 40 + i % 4000);
            all &= receiver.verify(frame, 0, 40 + i % 4000);
        }
        final long allocated = THREADS.getCurrentThreadAllocatedBytes() - before;
        assertTrue(all);
        assertTrue(allocated <= 16 * 1024, "signed and verified 100,000 frames with " + allocated + " bytes allocated");
    }

    private static ByteBuffer frame(final int length, final byte fill) {
        final ByteBuffer frame = ByteBuffer.allocate(length + FrameMac.TAG_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < length; i++) {
            frame.put(i, fill);
        }
        return frame;
    }
}
