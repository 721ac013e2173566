package dev.spool.queue;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.*;

class NamedTailerTest extends SpoolTestBase {

    @Test
    void shouldResumeWhereTheNameLastReadAfterReopen() {
        final long[] indices = new long[20];
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer("risk")) {
            for (int i = 0; i < indices.length; i++) {
                indices[i] = appender.append(new byte[]{(byte) i});
            }
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            for (int i = 0; i < 7; i++) {
                assertEquals(indices[i], tailer.read(into));
            }
            assertEquals("risk", tailer.name());
        }
        try (SpoolQueue queue = SpoolQueue.open(tempDir.resolve("q"));
             ExcerptTailer resumed = queue.createTailer("risk");
             ExcerptTailer other = queue.createTailer("audit")) {
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            assertEquals(indices[7], resumed.read(into), "resumes after the last excerpt read under that name");
            assertEquals(indices[0], other.read(into), "a new name starts at the beginning");
            assertEquals(List.of("risk", "audit"), queue.tailerNames());
        }
    }

    @Test
    void shouldCloseAQueueWhoseNamedTailerIsStillOpenAndRefuseTheTailerAfter() {
        final SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
        final ExcerptTailer tailer = queue.createTailer("risk");
        try (ExcerptAppender appender = queue.createAppender()) {
            appender.append(new byte[]{1});
        }
        queue.close();
        final SpoolException e = assertThrows(SpoolException.class, () -> tailer.read((bytes, offset, length, index) -> { }));
        assertTrue(e.getMessage().contains("closed"), e.getMessage());
        try (SpoolQueue reopened = SpoolQueue.open(tempDir.resolve("q"))) {
            assertEquals(List.of("risk"), reopened.tailerNames());
        }
    }

    @Test
    void shouldRejectNamesThatDoNotFit() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate()) {
            final SpoolException e = assertThrows(SpoolException.class,
                    () -> queue.createTailer("x".repeat(49)));
            assertTrue(e.getMessage().contains("49"), e.getMessage());
            assertThrows(SpoolException.class, () -> queue.createTailer(""));
            final SpoolException reserved = assertThrows(SpoolException.class,
                    () -> queue.createTailer("replica@host:7000"));
            assertTrue(reserved.getMessage().contains("replica@host:7000")
                    && reserved.getMessage().contains("replication source"), reserved.getMessage());
        }
    }

    @Test
    void shouldStartARemovedNameAtTheBeginningAndForgetIt() {
        final long[] indices = new long[10];
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < indices.length; i++) {
                indices[i] = appender.append(new byte[]{(byte) i});
            }
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            try (ExcerptTailer risk = queue.createTailer("risk")) {
                for (int i = 0; i < 4; i++) {
                    assertEquals(indices[i], risk.read(into));
                }
                final SpoolException e = assertThrows(SpoolException.class, () -> queue.removeTailer("risk"));
                assertTrue(e.getMessage().contains("'risk'"), e.getMessage());
            }
            assertTrue(queue.removeTailer("risk"));
            assertEquals(List.of(), queue.tailerNames());
            assertFalse(queue.removeTailer("risk"), "already gone");
            assertFalse(queue.removeTailer("never"));
        }
        try (SpoolQueue queue = SpoolQueue.open(tempDir.resolve("q"));
             ExcerptTailer risk = queue.createTailer("risk")) {
            assertEquals(indices[0], risk.read(Bytes.allocateElasticOnHeap()), "a removed name starts again at the beginning");
        }
    }
}
