package dev.spool.queue;

import dev.spool.queue.format.MetadataDescriptor;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class QueueBasicsTest extends SpoolTestBase {

    private SpoolQueue open() {
        return SpoolQueue.builder(tempDir.resolve("q")).rollCycle(RollCycle.DAILY).chunkLength(1 << 20).openOrCreate();
    }

    @Test
    void shouldReadBackWhatWasAppendedInOrderWithIndices() {
        try (SpoolQueue queue = open();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final List<Long> indices = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                indices.add(appender.append(("message-" + i).getBytes(StandardCharsets.UTF_8)));
            }
            assertEquals(indices.get(999), appender.lastIndexAppended());
            for (int i = 0; i < 1000; i++) {
                final int expected = i;
                final long expectedIndex = indices.get(i);
                assertTrue(tailer.read((bytes, offset, length, index) -> {
                    final byte[] payload = new byte[length];
                    bytes.read(offset, payload, 0, length);
                    assertEquals("message-" + expected, new String(payload, StandardCharsets.UTF_8));
                    assertEquals(expectedIndex, index);
                }));
            }
            assertFalse(tailer.read((bytes, offset, length, index) -> fail("nothing more to read")));
            for (int i = 1; i < indices.size(); i++) {
                assertEquals(indices.get(i - 1) + 1, indices.get(i), "indices are consecutive within a cycle");
            }
        }
    }

    @Test
    void shouldAppendFromByteBufferBytesAndClaim() {
        try (SpoolQueue queue = open();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final ByteBuffer buffer = ByteBuffer.allocateDirect(16).order(java.nio.ByteOrder.LITTLE_ENDIAN);
            buffer.putLong(42).flip();
            appender.append(buffer);
            assertEquals(8, buffer.remaining(), "append leaves the buffer unchanged");
            final Bytes<?> bytes = Bytes.allocateElasticDirect();
            try {
                bytes.writeLong(43);
                appender.append(bytes);
                assertEquals(8, bytes.readRemaining(), "append leaves the bytes unchanged");
            } finally {
                bytes.releaseLast();
            }
            final long offset = appender.claim(64);
            appender.claimedBytes().writeLong(offset, 44);
            final long claimed = appender.commit(8);

            final long[] seen = new long[3];
            for (int i = 0; i < 3; i++) {
                final int slot = i;
                assertTrue(tailer.read((b, o, l, index) -> {
                    assertEquals(8, l);
                    seen[slot] = b.readLong(o);
                }));
            }
            assertArrayEquals(new long[]{42, 43, 44}, seen);
            assertEquals(claimed, appender.lastIndexAppended());
        }
    }

    @Test
    void shouldLeaveNoTraceOfARolledBackClaim() {
        try (SpoolQueue queue = open();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final long first = appender.append(new byte[]{1});
            final long offset = appender.claim(1000);
            for (int i = 0; i < 1000; i++) {
                appender.claimedBytes().writeByte(offset + i, (byte) 0x7F);
            }
            appender.rollback();
            final long second = appender.append(new byte[]{2});
            assertEquals(first + 1, second);
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            assertEquals(first, tailer.read(into));
            assertEquals(second, tailer.read(into));
            assertEquals(-1, tailer.read(into));
            assertEquals(2, into.readRemaining());
            assertEquals(1, into.readByte());
            assertEquals(2, into.readByte());
        }
    }

    @Test
    void shouldRejectMessageOverTheLimitWithoutWritingIt() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).maxMessageLength(100).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final SpoolException e = assertThrows(SpoolException.class, () -> appender.append(new byte[101]));
            assertTrue(e.getMessage().contains("length=101") && e.getMessage().contains("maxMessageLength=100"), e.getMessage());
            assertEquals(-1, queue.lastIndex());
            appender.append(new byte[100]);
            assertEquals(appender.lastIndexAppended(), queue.lastIndex());
        }
    }

    @Test
    void shouldFailClearlyWhenAppenderUsedAfterClose() {
        try (SpoolQueue queue = open()) {
            final ExcerptAppender appender = queue.createAppender();
            appender.append(new byte[1]);
            appender.close();
            final SpoolException e = assertThrows(SpoolException.class, () -> appender.append(new byte[1]));
            assertTrue(e.getMessage().contains("closed") && e.getMessage().contains(queue.directory().toString()), e.getMessage());
        }
    }

    @Test
    void shouldFailClearlyWhenQueueClosedUnderAppender() {
        final SpoolQueue queue = open();
        final ExcerptAppender appender = queue.createAppender();
        queue.close();
        assertThrows(SpoolException.class, () -> appender.append(new byte[1]));
        assertThrows(SpoolException.class, queue::createTailer);
    }

    @Test
    void shouldRejectEmptyPayloadSoThatLaterExcerptsStayReadable() {
        // an empty excerpt's header would be 0, which readers take for "nothing written here yet"
        try (SpoolQueue queue = open();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final long first = appender.append(new byte[]{1});
            assertThrows(SpoolException.class, () -> appender.append(new byte[0]));
            assertThrows(SpoolException.class, () -> appender.append(ByteBuffer.allocate(0)));
            assertThrows(SpoolException.class, () -> appender.claim(0));
            appender.claim(8);
            final SpoolException e = assertThrows(SpoolException.class, () -> appender.commit(0));
            assertTrue(e.getMessage().contains("roll back"), e.getMessage());
            appender.rollback();
            final long second = appender.append(new byte[]{2});
            assertEquals(first + 1, second);
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            assertEquals(first, tailer.read(into));
            assertEquals(second, tailer.read(into), "the excerpt after the rejected empty one is readable");
            assertEquals(-1, tailer.read(into));
        }
    }

    @Test
    void shouldRefuseToCreateQueueWhoseMaxMessageLengthItCannotReopen() {
        final SpoolException e = assertThrows(SpoolException.class,
                () -> SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).maxMessageLength(0).openOrCreate());
        assertTrue(e.getMessage().contains("maxMessageLength=0"), e.getMessage());
        assertFalse(java.nio.file.Files.exists(tempDir.resolve("q").resolve(MetadataDescriptor.FILE_NAME)),
                "no metadata file that cannot be opened is left behind");
    }
}
