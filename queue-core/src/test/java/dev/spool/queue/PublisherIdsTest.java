package dev.spool.queue;

import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.internal.IndexedAppender;
import dev.spool.queue.internal.PublisherAppender;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.tools.SpoolTool;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The publisher id and sequence per excerpt of a queue created with {@link SpoolQueueBuilder#publisherIds(boolean)}:
 * their bytes on disk (with and without checksums), invisible to tailers and the tools, read back by
 * {@link QueueInternals#readLastPublishers}, copied verbatim by the body path, and fixed at creation.
 */
class PublisherIdsTest extends SpoolTestBase {
    private static final long CHUNK = 1 << 20;
    /** Its bytes read "HGFEDCBA" in a dump's ASCII column if they ever leaked into a payload. */
    private static final long PUBLISHER = 0x4142434445464748L;

    private SpoolQueue open(final Path directory, final boolean checksums) {
        return SpoolQueue.builder(directory).chunkLength(CHUNK).indexSpacing(4).checksums(checksums)
                .publisherIds(true).openOrCreate();
    }

    private static byte[] message(final int i) {
        return ("hello-" + i).getBytes(StandardCharsets.US_ASCII);
    }

    private static long publish(final PublisherAppender appender, final long publisher, final long sequence,
                                final byte[] payload) {
        final BytesStore<?, ?> store = BytesStore.wrap(payload);
        return appender.append(publisher, sequence, store, store.start(), payload.length);
    }

    private static ByteBuffer firstCycleFile(final Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            final Path file = files.filter(f -> f.toString().endsWith(".cycle")).findFirst().orElseThrow();
            return ByteBuffer.wrap(Files.readAllBytes(file)).order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    /** @return the positions of the data excerpts of the file, in order. */
    private static List<Integer> dataPositions(final ByteBuffer file, final int count) {
        final List<Integer> positions = new ArrayList<>();
        int position = (int) CycleDescriptor.DATA_OFFSET;
        while (positions.size() < count) {
            final int header = file.getInt(position);
            if (ExcerptDescriptor.isData(header)) {
                positions.add(position);
            }
            position += ExcerptDescriptor.alignedLength(ExcerptDescriptor.length(header));
        }
        return positions;
    }

    @Test
    void shouldStoreThePublisherIdAndSequenceAheadOfThePayloadAndZerosForAnOrdinaryAppend() throws IOException {
        for (final boolean checksums : new boolean[]{false, true}) {
            final Path directory = tempDir.resolve("q-" + checksums);
            try (SpoolQueue queue = open(directory, checksums);
                 PublisherAppender publisher = queue.unwrap(QueueInternals.class).createPublisherAppender();
                 ExcerptAppender appender = queue.createAppender()) {
                assertTrue(queue.publisherIds());
                publish(publisher, PUBLISHER, 3, message(0));
                appender.append(message(1));
            }
            final ByteBuffer file = firstCycleFile(directory);
            final List<Integer> positions = dataPositions(file, 2);
            for (int i = 0; i < 2; i++) {
                final int at = positions.get(i);
                final byte[] payload = message(i);
                assertEquals(20 + payload.length, ExcerptDescriptor.length(file.getInt(at)), "the length counts the prefix");
                assertEquals(i == 0 ? PUBLISHER : 0, file.getLong(at + ExcerptDescriptor.PUBLISHER_ID_OFFSET));
                assertEquals(i == 0 ? 3 : 0, file.getLong(at + ExcerptDescriptor.PUBLISHER_SEQUENCE_OFFSET));
                final byte[] stored = new byte[payload.length];
                file.get(at + ExcerptDescriptor.PUBLISHED_PAYLOAD_OFFSET, stored);
                assertArrayEquals(payload, stored);
                final CRC32C crc = new CRC32C();
                crc.update(file.slice(at + ExcerptDescriptor.PUBLISHER_ID_OFFSET, 16 + payload.length));
                assertEquals(checksums ? (int) crc.getValue() : 0, file.getInt(at + ExcerptDescriptor.CHECKSUM_OFFSET),
                        "the CRC32C covers the id, the sequence and the payload; 0 without checksums");
            }
        }
    }

    @Test
    void shouldDeliverThePayloadAloneToTailersForwardBackwardAndByIndex() {
        final long[] indices = new long[6];
        try (SpoolQueue queue = open(tempDir.resolve("q"), true);
             PublisherAppender publisher = queue.unwrap(QueueInternals.class).createPublisherAppender();
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < indices.length; i++) {
                indices[i] = i % 2 == 0 ? publish(publisher, PUBLISHER, i + 1, message(i)) : appender.append(message(i));
            }
            try (ExcerptTailer tailer = queue.createTailer()) {
                final Bytes<?> into = Bytes.allocateElasticOnHeap();
                for (int i = 0; i < indices.length; i++) {
                    into.clear();
                    assertEquals(indices[i], tailer.read(into));
                    assertArrayEquals(message(i), into.toByteArray());
                }
                tailer.direction(Direction.BACKWARD).toEnd();
                for (int i = indices.length - 1; i >= 0; i--) {
                    into.clear();
                    assertEquals(indices[i], tailer.read(into));
                    assertArrayEquals(message(i), into.toByteArray());
                }
                tailer.direction(Direction.FORWARD);
                assertTrue(tailer.moveToIndex(indices[4]));
                into.clear();
                assertEquals(indices[4], tailer.read(into));
                assertArrayEquals(message(4), into.toByteArray());
            }
        }
    }

    @Test
    void shouldKeepThePublisherOutOfDumpStatsAndVerify() {
        final Path directory = tempDir.resolve("q");
        try (SpoolQueue queue = open(directory, false);
             PublisherAppender publisher = queue.unwrap(QueueInternals.class).createPublisherAppender()) {
            for (int i = 0; i < 3; i++) {
                publish(publisher, PUBLISHER, i + 1, message(i));
            }
        }
        verify(directory);
        final String dump = tool("dump", directory.toString());
        assertTrue(dump.contains("hello-2"), dump);
        assertTrue(dump.contains("length=" + message(2).length), dump);
        assertFalse(dump.contains("HGFEDCBA"), dump);
        final String stats = tool("stats", directory.toString());
        final int payloads = message(0).length + message(1).length + message(2).length;
        assertTrue(stats.contains("payload bytes=" + payloads), stats);
    }

    private static String tool(final String... args) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int status;
        try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
            status = SpoolTool.run(args, print, print);
        }
        final String text = out.toString(StandardCharsets.UTF_8);
        assertEquals(SpoolTool.EXIT_OK, status, text);
        return text;
    }

    @Test
    void shouldReadBackTheLastPublishesInIndexOrderSkippingOrdinaryAppends() {
        try (SpoolQueue queue = open(tempDir.resolve("q"), true);
             PublisherAppender publisher = queue.unwrap(QueueInternals.class).createPublisherAppender();
             ExcerptAppender appender = queue.createAppender()) {
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            final List<long[]> read = new ArrayList<>();
            assertEquals(0, internals.readLastPublishers(10, (id, sequence, index) -> read.add(new long[]{id})));
            final long[] indices = new long[10];
            for (int i = 0; i < indices.length; i++) {
                indices[i] = i == 7 ? appender.append(message(i)) : publish(publisher, 100 + i % 2, i + 1, message(i));
            }
            assertEquals(4, internals.readLastPublishers(4,
                    (id, sequence, index) -> read.add(new long[]{id, sequence, index})));
            assertEquals(3, read.size(), "the ordinary append at index 7 has no publisher");
            assertArrayEquals(new long[]{100, 7, indices[6]}, read.get(0));
            assertArrayEquals(new long[]{100, 9, indices[8]}, read.get(1));
            assertArrayEquals(new long[]{101, 10, indices[9]}, read.get(2));
            read.clear();
            assertEquals(10, internals.readLastPublishers(1000, (id, sequence, index) -> read.add(new long[]{id})));
            assertEquals(9, read.size());
        }
    }

    @Test
    void shouldReadBackTheLastPublishesAcrossACycleRoll() {
        final ManualClock clock = new ManualClock(0);
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(CHUNK).rollCycle(RollCycle.HOURLY)
                .epochClock(clock).publisherIds(true).openOrCreate();
             PublisherAppender publisher = queue.unwrap(QueueInternals.class).createPublisherAppender()) {
            final long[] indices = new long[6];
            for (int i = 0; i < indices.length; i++) {
                if (i == 4) {
                    clock.advance(RollCycle.HOURLY.lengthMillis());
                }
                indices[i] = publish(publisher, PUBLISHER, i + 1, message(i));
            }
            assertEquals(RollCycle.HOURLY.toCycle(indices[3]) + 1, RollCycle.HOURLY.toCycle(indices[4]), "rolled");
            final List<long[]> read = new ArrayList<>();
            assertEquals(3, queue.unwrap(QueueInternals.class).readLastPublishers(3,
                    (id, sequence, index) -> read.add(new long[]{sequence, index})));
            assertArrayEquals(new long[]{4, indices[3]}, read.get(0), "the walk back crosses into the earlier cycle");
            assertArrayEquals(new long[]{6, indices[5]}, read.get(2));
        }
    }

    @Test
    void shouldCopyABodyVerbatimToAQueueOfTheSameFeatures() throws IOException {
        final Path primary = tempDir.resolve("primary");
        final Path copy = tempDir.resolve("copy");
        try (SpoolQueue from = open(primary, true); SpoolQueue to = open(copy, true);
             PublisherAppender publisher = from.unwrap(QueueInternals.class).createPublisherAppender();
             IndexedAppender indexed = to.unwrap(QueueInternals.class).createIndexedAppender()) {
            final long index = publish(publisher, PUBLISHER, 42, message(0));
            try (ExcerptTailer bodies = from.unwrap(QueueInternals.class).createBodyTailer()) {
                assertTrue(bodies.read((bytes, offset, length, at) -> indexed.appendBodyAt(at, bytes, offset, length)));
            }
            final List<long[]> read = new ArrayList<>();
            to.unwrap(QueueInternals.class).readLastPublishers(1,
                    (id, sequence, at) -> read.add(new long[]{id, sequence, at}));
            assertArrayEquals(new long[]{PUBLISHER, 42, index}, read.get(0));
        }
        final ByteBuffer a = firstCycleFile(primary);
        final ByteBuffer b = firstCycleFile(copy);
        final int at = dataPositions(a, 1).get(0);
        final int length = ExcerptDescriptor.alignedLength(ExcerptDescriptor.length(a.getInt(at)));
        assertEquals(a.slice(at, length), b.slice(dataPositions(b, 1).get(0), length));
    }

    @Test
    void shouldRefuseReopeningWithAnotherPublisherIdsSettingAndAdoptThePersistedOne() {
        final Path directory = tempDir.resolve("q");
        open(directory, false).close();
        final SpoolException refused = assertThrows(SpoolException.class,
                () -> SpoolQueue.builder(directory).publisherIds(false).open());
        assertTrue(refused.getMessage().contains("publisherIds=true"), refused.getMessage());
        try (SpoolQueue queue = SpoolQueue.builder(directory).open()) {
            assertTrue(queue.publisherIds());
        }
        try (SpoolQueue plain = SpoolQueue.builder(tempDir.resolve("plain")).openOrCreate()) {
            assertFalse(plain.publisherIds());
        }
    }

    @Test
    void shouldDropThePublisherOnAQueueWithoutPublisherIds() {
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(CHUNK).openOrCreate();
             PublisherAppender publisher = queue.unwrap(QueueInternals.class).createPublisherAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            final long index = publish(publisher, PUBLISHER, 1, message(0));
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            assertEquals(index, tailer.read(into));
            assertArrayEquals(message(0), into.toByteArray());
            assertEquals(0, queue.unwrap(QueueInternals.class).readLastPublishers(10, (id, sequence, at) -> {
            }));
        }
    }
}
