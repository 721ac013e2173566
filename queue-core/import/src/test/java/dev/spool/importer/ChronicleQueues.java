package dev.spool.importer;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.time.SetTimeProvider;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;
import net.openhft.chronicle.wire.DocumentContext;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Chronicle Queues written by Chronicle Queue itself, and the checks that a Spool queue holds exactly their documents. */
final class ChronicleQueues {
    /** 2023-11-14T22:13:20Z: a whole second, so that TEST_SECONDLY cycles start where the test says. */
    static final long START_MILLIS = 1_700_000_000_000L;

    private ChronicleQueues() {
    }

    /** @return a time provider at {@link #START_MILLIS} (SetTimeProvider counts in nanoseconds). */
    static SetTimeProvider clock() {
        return new SetTimeProvider(START_MILLIS * 1_000_000L);
    }

    /** @return a writer of a Chronicle Queue that rolls every second of {@code time}. */
    static SingleChronicleQueue writer(final Path directory, final SetTimeProvider time) {
        return SingleChronicleQueueBuilder.binary(directory).rollCycle(TestRollCycles.TEST_SECONDLY)
                .timeProvider(time).build();
    }

    /** Appends one data document whose bytes are {@code length} bytes derived from {@code seed}. */
    static void append(final ExcerptAppender appender, final int length, final long seed) {
        try (DocumentContext document = appender.writingDocument()) {
            document.wire().bytes().write(payload(length, seed));
        }
    }

    /** Appends one metadata document, which an import skips. */
    static void appendMetadata(final ExcerptAppender appender) {
        try (DocumentContext document = appender.writingDocument(true)) {
            document.wire().bytes().writeLong(0x5EEDL);
        }
    }

    static byte[] payload(final int length, final long seed) {
        final byte[] bytes = new byte[length];
        new SplittableRandom(seed).nextBytes(bytes);
        return bytes;
    }

    /** Appends {@code count} documents of random lengths up to {@code maxLength}. */
    static void appendRandom(final ExcerptAppender appender, final int count, final int maxLength, final long seed) {
        final SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < count; i++) {
            append(appender, random.nextInt(maxLength + 1), random.nextLong());
        }
    }

    /** @return every data document of the Chronicle Queue, in order, as Chronicle Queue's reader returns it. */
    static List<byte[]> chronicleDocuments(final Path directory) {
        final List<byte[]> documents = new ArrayList<>();
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(directory).readOnly(true).build();
             net.openhft.chronicle.queue.ExcerptTailer tailer = queue.createTailer()) {
            while (true) {
                try (DocumentContext document = tailer.readingDocument()) {
                    if (!document.isPresent()) {
                        return documents;
                    }
                    final Bytes<?> bytes = document.wire().bytes();
                    final byte[] copy = new byte[(int) bytes.readRemaining()];
                    bytes.read(copy);
                    documents.add(copy);
                }
            }
        }
    }

    /** @return every excerpt of the Spool queue, in order. */
    static List<byte[]> spoolExcerpts(final Path directory) {
        final List<byte[]> excerpts = new ArrayList<>();
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open();
             ExcerptTailer tailer = queue.createTailer()) {
            while (tailer.read((store, offset, length, index) -> {
                final byte[] copy = new byte[length];
                store.read(offset, copy, 0, length);
                excerpts.add(copy);
            })) {
                continue;
            }
        }
        return excerpts;
    }

    /** Fails unless the Spool queue holds exactly the Chronicle Queue's data documents, in order, each once. */
    static void assertSameDocuments(final Path chronicle, final Path spool) {
        final List<byte[]> expected = chronicleDocuments(chronicle);
        final List<byte[]> actual = spoolExcerpts(spool);
        assertEquals(expected.size(), actual.size(), "excerpts in " + spool + " against documents in " + chronicle);
        for (int i = 0; i < expected.size(); i++) {
            assertArrayEquals(expected.get(i), actual.get(i), "excerpt " + i + " of " + expected.size());
        }
    }
}
