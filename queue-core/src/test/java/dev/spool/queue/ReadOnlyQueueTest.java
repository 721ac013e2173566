package dev.spool.queue;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** A read-only open maps read-only and never writes: tailers work, on a read-only copy and a read-only mount. */
class ReadOnlyQueueTest extends SpoolTestBase {
    private static final int COUNT = 1_000;

    private Path writeQueue() {
        final Path directory = tempDir.resolve("q");
        try (SpoolQueue queue = SpoolQueue.builder(directory).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < COUNT; i++) {
                appender.append(("message-" + i).getBytes());
            }
        }
        return directory;
    }

    @Test
    void shouldReadWhatAWriterAppendsWithoutChangingAByte() throws IOException {
        final Path directory = writeQueue();
        final byte[] metadataBefore = Files.readAllBytes(directory.resolve("metadata.spool"));
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().openOrCreate();
             ExcerptTailer tailer = queue.createTailer()) {
            int read = 0;
            while (tailer.read((bytes, offset, length, index) -> { })) {
                read++;
            }
            assertEquals(COUNT, read);
            try (SpoolQueue writer = SpoolQueue.open(directory); ExcerptAppender appender = writer.createAppender()) {
                final long index = appender.append("live".getBytes());
                assertTrue(tailer.read((bytes, offset, length, at) -> assertEquals(index, at)),
                        "a read-only tailer sees a live writer's excerpt");
            }
        }
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().openOrCreate()) {
            assertEquals(COUNT, queue.lastIndex() - queue.firstIndex());
        }
        final byte[] metadataAfter = Files.readAllBytes(directory.resolve("metadata.spool"));
        assertEquals(metadataBefore.length, metadataAfter.length);
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().openOrCreate();
             ExcerptTailer tailer = queue.createTailer()) {
            tailer.toEnd();
            final byte[] before = Files.readAllBytes(directory.resolve("metadata.spool"));
            assertFalse(tailer.read((bytes, offset, length, index) -> { }));
            assertArrayEquals(before, Files.readAllBytes(directory.resolve("metadata.spool")),
                    "a read-only open writes nothing to the metadata");
        }
    }

    @Test
    void shouldOpenACycleFileWhileAWriterGrowsIt() throws Exception {
        final Path directory = tempDir.resolve("growing");
        final byte[] message = new byte[60 << 10];
        final int count = 2_000;
        try (SpoolQueue writer = SpoolQueue.builder(directory).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = writer.createAppender()) {
            appender.append(message);
            final Thread growing = new Thread(() -> {
                for (int i = 1; i < count; i++) {
                    appender.append(message);
                }
            }, "grows-the-cycle-file");
            growing.start();
            int opens = 0;
            try {
                // each open reads the file's length and its write-position hint while the writer grows it a chunk
                // at a time and moves the hint past the old length
                while (growing.isAlive() || opens == 0) {
                    try (SpoolQueue reader = SpoolQueue.builder(directory).readOnly().openOrCreate();
                         ExcerptTailer tailer = reader.createTailer()) {
                        assertTrue(tailer.read((bytes, offset, length, index) -> assertEquals(message.length, length)));
                    }
                    opens++;
                }
            } finally {
                growing.join();
            }
            assertTrue(opens > 1, "opened " + opens + " times while the writer grew the file");
        }
    }

    @Test
    void shouldRefuseEverythingThatWritesWithAMessageSayingReadOnly() throws IOException {
        final Path directory = writeQueue();
        Files.delete(directory.resolve("metadata.lock"));
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().openOrCreate()) {
            final List<Runnable> writes = List.of(queue::createAppender, () -> queue.createAppender(SyncPolicy.NONE),
                    () -> queue.createTailer("audit"), () -> queue.removeTailer("audit"), queue::createPretoucher,
                    queue::applyRetention, queue::createRetention, queue::createGroupCommit,
                    () -> queue.startPretoucher(Duration.ofMillis(10)));
            for (final Runnable write : writes) {
                final SpoolException e = assertThrows(SpoolException.class, write::run);
                assertTrue(e.getMessage().contains("is open read-only") && e.getMessage().contains(directory.toString()),
                        e.getMessage());
            }
            try (ExcerptTailer tailer = queue.createTailer()) {
                assertTrue(tailer.read((bytes, offset, length, index) -> { }), "tailers still work after the refusals");
            }
        }
        assertFalse(Files.exists(directory.resolve("metadata.lock")), "no process slot was claimed: no lock file");
    }

    @Test
    void shouldRefuseAMissingQueueAndOptionsThatWriteWithoutCreatingAnything() {
        final Path missing = tempDir.resolve("missing");
        final SpoolException e = assertThrows(SpoolException.class, () -> SpoolQueue.builder(missing).readOnly().openOrCreate());
        assertTrue(e.getMessage().contains(missing.toString()) && e.getMessage().contains("read-only"), e.getMessage());
        assertFalse(Files.exists(missing));
        final Path directory = writeQueue();
        final SpoolException sync = assertThrows(SpoolException.class,
                () -> SpoolQueue.builder(directory).readOnly().syncPolicy(SyncPolicy.everyMessage()).openOrCreate());
        assertTrue(sync.getMessage().contains("syncPolicy=") && sync.getMessage().contains("readOnly()"), sync.getMessage());
        final SpoolException retain = assertThrows(SpoolException.class,
                () -> SpoolQueue.builder(directory).readOnly().retainCycles(2).openOrCreate());
        assertTrue(retain.getMessage().contains("retainCycles=2"), retain.getMessage());
    }

    @Test
    void shouldTailOnAReadOnlyMountWhereAWritableOpenFails() throws Exception {
        final String why = OtherUser.whyNoMount();
        Assumptions.assumeTrue(why == null, () -> "skipped: " + why);
        final Path directory = writeQueue();
        try (ChildJvm reader = ChildJvm.startWrapped(OtherUser.withReadOnlyMount(directory),
                System.getProperty("java.class.path"), ReadOnlyMains.Reader.class, tempDir.resolve("reader.err"),
                directory.toString())) {
            final String writable = reader.awaitLine("WRITABLE", 60, TimeUnit.SECONDS);
            assertTrue(writable.contains("failed") && writable.contains("Read-only file system"), writable);
            assertReadEverything(reader);
            assertEquals(0, reader.awaitExit(60, TimeUnit.SECONDS));
        }
    }

    @Test
    void shouldTailAsAnotherUserWhoMayOnlyRead() throws Exception {
        final String why = OtherUser.whyNot();
        Assumptions.assumeTrue(why == null, () -> "skipped: " + why);
        final Path directory = writeQueue();
        Files.setPosixFilePermissions(tempDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        giveGroup(directory);
        try (ChildJvm reader = ChildJvm.startWrapped(OtherUser.asNobody(), OtherUser.readableClassPath(tempDir.resolve("cp")),
                ReadOnlyMains.Reader.class, tempDir.resolve("reader.err"), directory.toString())) {
            final String writable = reader.awaitLine("WRITABLE", 60, TimeUnit.SECONDS);
            assertTrue(writable.contains("failed") && writable.contains("Permission denied"), writable);
            assertReadEverything(reader);
            assertEquals(0, reader.awaitExit(60, TimeUnit.SECONDS));
        }
    }

    private static void assertReadEverything(final ChildJvm reader) throws InterruptedException {
        final String read = reader.awaitLine("READ", 60, TimeUnit.SECONDS);
        final String[] words = read.split(" ");
        assertEquals(String.valueOf(COUNT), words[1], read);
        assertEquals(words[2], words[3], "the last index read is the queue's last index: " + read);
        final String tail = reader.awaitLine("TAIL", 60, TimeUnit.SECONDS);
        assertTrue(tail.startsWith("TAIL 0 " + COUNT + " "), tail);
    }

    /** Gives the queue's files to group 65534, whose member can then read (mode rw-r-----) but not write. */
    static void giveGroup(final Path directory) throws IOException, InterruptedException {
        final Process chgrp = new ProcessBuilder("chgrp", "-R", String.valueOf(OtherUser.GID), directory.toString())
                .inheritIO().start();
        assertTrue(chgrp.waitFor(30, TimeUnit.SECONDS) && chgrp.exitValue() == 0, "chgrp -R " + directory);
    }
}
