package dev.spool.queue;

import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.MetadataDescriptor;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class OpenOrCreateTest extends SpoolTestBase {

    @Test
    void shouldRefuseToOpenAnAbsentDirectoryNamingItAndCreateNothing() {
        final Path mistyped = tempDir.resolve("ordres");
        final SpoolException e = assertThrows(SpoolException.class, () -> SpoolQueue.open(mistyped));
        assertTrue(e.getMessage().contains(mistyped.toAbsolutePath().toString()), e.getMessage());
        assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
        assertFalse(Files.exists(mistyped), "nothing was created");
    }

    @Test
    void shouldRefuseToOpenARegularFileSayingItIsAFile() throws IOException {
        final Path file = Files.write(tempDir.resolve("orders.log"), new byte[]{1, 2, 3});
        final SpoolException e = assertThrows(SpoolException.class, () -> SpoolQueue.open(file));
        assertEquals("no Spool queue at " + file.toAbsolutePath() + ": it is a file, not a directory", e.getMessage());
        assertArrayEquals(new byte[]{1, 2, 3}, Files.readAllBytes(file), "the file is left as it was");
    }

    @Test
    void shouldRefuseToOpenADirectoryWithoutAQueue() throws IOException {
        final Path empty = Files.createDirectories(tempDir.resolve("empty"));
        final SpoolException e = assertThrows(SpoolException.class, () -> SpoolQueue.open(empty));
        assertTrue(e.getMessage().contains(empty.toAbsolutePath().toString())
                && e.getMessage().contains(MetadataDescriptor.FILE_NAME), e.getMessage());
        assertFalse(Files.exists(empty.resolve(MetadataDescriptor.FILE_NAME)), "nothing was created");
    }

    @Test
    void shouldCreateANewQueueAndOpenItLater() {
        final Path directory = tempDir.resolve("q");
        final long index;
        try (SpoolQueue queue = SpoolQueue.builder(directory).chunkLength(1 << 20).create();
             ExcerptAppender appender = queue.createAppender()) {
            index = appender.append(new byte[]{7});
        }
        try (SpoolQueue queue = SpoolQueue.open(directory)) {
            assertEquals(index, queue.lastIndex());
            assertEquals(CycleDescriptor.maxPayloadLength(1 << 20), queue.maxMessageLength(), "the persisted chunk length is adopted");
        }
    }

    @Test
    void shouldRefuseToCreateOverAnExistingQueueAndLeaveItIntact() {
        final Path directory = tempDir.resolve("q");
        final long index;
        try (SpoolQueue queue = SpoolQueue.create(directory); ExcerptAppender appender = queue.createAppender()) {
            index = appender.append(new byte[]{7});
        }
        final SpoolException e = assertThrows(SpoolException.class, () -> SpoolQueue.create(directory));
        assertTrue(e.getMessage().contains(directory.toAbsolutePath().toString())
                && e.getMessage().contains("exists"), e.getMessage());
        try (SpoolQueue queue = SpoolQueue.openOrCreate(directory)) {
            assertEquals(index, queue.lastIndex(), "what was written is still there");
        }
    }

    @Test
    void shouldOpenOrCreateEitherWay() {
        final Path directory = tempDir.resolve("q");
        try (SpoolQueue queue = SpoolQueue.openOrCreate(directory)) {
            assertEquals(-1, queue.lastIndex());
        }
        try (SpoolQueue queue = SpoolQueue.openOrCreate(directory)) {
            assertTrue(SpoolQueue.exists(queue.directory()));
        }
    }

    @Test
    void shouldRefuseBadOptionsWhenBuiltNamingOptionAndValueAndCreateNothing() {
        final Path directory = tempDir.resolve("q");
        final SpoolQueueBuilder builder = SpoolQueue.builder(directory).pretouchLength(-5).retainCycles(3);
        final SpoolException e = assertThrows(SpoolException.class, builder::create);
        assertTrue(e.getMessage().contains("pretouchLength=-5") && e.getMessage().contains(directory.toString()), e.getMessage());
        final SpoolException chunk = assertThrows(SpoolException.class,
                () -> SpoolQueue.builder(directory).chunkLength(3000).create());
        assertTrue(chunk.getMessage().contains("chunkLength=3000"), chunk.getMessage());
        assertFalse(Files.exists(directory), "nothing was created");
    }
}
