package dev.spool.queue;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** Named tailers' delivery: on read (at-least-once per handler) and explicit commits, in this JVM and across kill -9. */
class CommitModeTest extends SpoolTestBase {
    private static final int COUNT = 40;

    private long[] fill(final Path directory) {
        final long[] indices = new long[COUNT];
        try (SpoolQueue queue = SpoolQueue.builder(directory).chunkLength(1 << 20).create();
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < COUNT; i++) {
                indices[i] = appender.append(new byte[]{(byte) i});
            }
        }
        return indices;
    }

    private static long readOne(final SpoolQueue queue, final String name) {
        try (ExcerptTailer tailer = queue.createTailer(name, CommitMode.EXPLICIT)) {
            return tailer.read(Bytes.allocateElasticOnHeap());
        }
    }

    @Test
    void shouldResumeAfterTheLastCommitNotTheLastRead() {
        final Path directory = tempDir.resolve("q");
        final long[] indices = fill(directory);
        try (SpoolQueue queue = SpoolQueue.open(directory)) {
            try (ExcerptTailer tailer = queue.createTailer("settle", CommitMode.EXPLICIT)) {
                assertEquals(CommitMode.EXPLICIT, tailer.commitMode());
                final Bytes<?> into = Bytes.allocateElasticOnHeap();
                for (int i = 0; i < 10; i++) {
                    assertEquals(indices[i], tailer.read(into));
                }
                assertEquals(indices[0], readOneAfterClose(queue, tailer), "nothing committed: a new tailer starts at the start");
            }
            try (ExcerptTailer tailer = queue.createTailer("settle", CommitMode.EXPLICIT)) {
                final Bytes<?> into = Bytes.allocateElasticOnHeap();
                for (int i = 0; i < 10; i++) {
                    tailer.read(into);
                }
                tailer.commit(indices[3]);
            }
            assertEquals(indices[4], readOne(queue, "settle"), "resumes after the committed index, not the last read");
            try (ExcerptTailer tailer = queue.createTailer("settle", CommitMode.EXPLICIT)) {
                tailer.read(Bytes.allocateElasticOnHeap());
                tailer.read(Bytes.allocateElasticOnHeap());
                tailer.commit();
            }
            assertEquals(indices[6], readOne(queue, "settle"), "commit() persists the highest index read");
        }
    }

    /** Closes {@code tailer} and reads one excerpt under its name. */
    private static long readOneAfterClose(final SpoolQueue queue, final ExcerptTailer tailer) {
        tailer.close();
        return readOne(queue, tailer.name());
    }

    @Test
    void shouldRefuseCommitsThatDoNotNameAReadIndexOfANamedTailer() {
        final Path directory = tempDir.resolve("q");
        final long[] indices = fill(directory);
        try (SpoolQueue queue = SpoolQueue.open(directory);
             ExcerptTailer unnamed = queue.createTailer();
             ExcerptTailer named = queue.createTailer("settle", CommitMode.EXPLICIT)) {
            unnamed.read(Bytes.allocateElasticOnHeap());
            final SpoolException noName = assertThrows(SpoolException.class, () -> unnamed.commit(indices[0]));
            assertTrue(noName.getMessage().contains("unnamed") && noName.getMessage().contains(directory.getFileName().toString()),
                    noName.getMessage());
            final SpoolException nothingRead = assertThrows(SpoolException.class, named::commit);
            assertTrue(nothingRead.getMessage().contains("'settle'"), nothingRead.getMessage());
            named.read(Bytes.allocateElasticOnHeap());
            final SpoolException ahead = assertThrows(SpoolException.class, () -> named.commit(indices[5]));
            assertTrue(ahead.getMessage().contains(IndexFormat.format(indices[5], queue.rollCycle()))
                    && ahead.getMessage().contains(IndexFormat.format(indices[0], queue.rollCycle())), ahead.getMessage());
        }
        try (SpoolQueue queue = SpoolQueue.open(directory)) {
            assertEquals(indices[0], readOne(queue, "settle"), "the refused commits persisted nothing");
        }
    }

    @Test
    void shouldResumeAfterTheLastCommitWhenTheConsumerIsKilled() throws Exception {
        final Path directory = tempDir.resolve("q");
        final long[] indices = fill(directory);
        try (ChildJvm child = ChildJvm.start(ChildMains.CommittingReader.class, tempDir.resolve("child.stderr"),
                directory.toString(), "settle", "25", "17")) {
            final String[] line = child.awaitLine("COMMITTED", 60, TimeUnit.SECONDS).split(" ");
            assertEquals(indices[16], Long.parseLong(line[1]));
            assertEquals(indices[24], Long.parseLong(line[3]));
            child.kill();
        }
        try (SpoolQueue queue = SpoolQueue.open(directory)) {
            assertEquals(indices[17], readOne(queue, "settle"),
                    "excerpts read but not committed before the kill are read again");
        }
    }

    @Test
    void shouldReadAgainTheExcerptWhoseHandlerWasKilledOnRead() throws Exception {
        final Path directory = tempDir.resolve("q");
        final long[] indices = fill(directory);
        try (ChildJvm child = ChildJvm.start(ChildMains.DyingHandler.class, tempDir.resolve("child.stderr"),
                directory.toString(), "risk", "9")) {
            assertEquals(indices[9], Long.parseLong(child.awaitLine("IN_HANDLER", 60, TimeUnit.SECONDS).split(" ")[1]));
            child.kill();
        }
        try (SpoolQueue queue = SpoolQueue.open(directory); ExcerptTailer tailer = queue.createTailer("risk")) {
            assertEquals(CommitMode.ON_READ, tailer.commitMode());
            assertEquals(indices[9], tailer.read(Bytes.allocateElasticOnHeap()),
                    "at-least-once: the excerpt whose handler died is delivered again");
        }
    }
}
