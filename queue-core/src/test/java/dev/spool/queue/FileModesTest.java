package dev.spool.queue;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Files and directories get the builder's modes whatever the umask, and the write lock's liveness check cannot be
 * faked by a user who may only read the queue.
 */
class FileModesTest extends SpoolTestBase {

    private static String mode(final Path path) throws IOException {
        return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
    }

    private static void appendOne(final SpoolQueue queue) {
        try (ExcerptAppender appender = queue.createAppender()) {
            appender.append(new byte[8]);
        }
    }

    @Test
    void shouldCreateFilesAndDirectoriesWithTheDefaultModes() throws IOException {
        final Path directory = tempDir.resolve("parent").resolve("q");
        try (SpoolQueue queue = SpoolQueue.builder(directory).chunkLength(1 << 20).openOrCreate()) {
            appendOne(queue);
            assertEquals("rwxr-x---", mode(directory));
            assertEquals("rwxr-x---", mode(directory.getParent()), "a missing parent gets the directory mode too");
            assertEquals("rw-r-----", mode(directory.resolve("metadata.spool")));
            assertEquals("rw-------", mode(directory.resolve("metadata.lock")), "only writers may open the lock file");
            for (final long cycle : queue.cycles()) {
                assertEquals("rw-r-----", mode(directory.resolve(queue.rollCycle().fileName(cycle, queue.epochMillis()))));
            }
        }
    }

    @Test
    void shouldCreateFilesWithTheConfiguredModesAndGiveGroupWritersTheLockFile() throws IOException {
        final Path directory = tempDir.resolve("q");
        try (SpoolQueue queue = SpoolQueue.builder(directory).chunkLength(1 << 20)
                .fileMode(PosixFilePermissions.fromString("rw-rw-r--"))
                .directoryMode(PosixFilePermissions.fromString("rwxrwxr-x")).openOrCreate()) {
            appendOne(queue);
            assertEquals("rwxrwxr-x", mode(directory));
            assertEquals("rw-rw-r--", mode(directory.resolve("metadata.spool")));
            assertEquals("rw-rw----", mode(directory.resolve("metadata.lock")), "readers of the data get no lock file");
        }
    }

    @Test
    void shouldRejectBadModesAtBuildNamingTheOptionAndTheValue() {
        final Path directory = tempDir.resolve("q");
        assertRejected("fileMode=r--r----- must let the owner read and write",
                SpoolQueue.builder(directory).fileMode(PosixFilePermissions.fromString("r--r-----")));
        assertRejected("fileMode=rwxr----- must not let anyone execute",
                SpoolQueue.builder(directory).fileMode(PosixFilePermissions.fromString("rwxr-----")));
        assertRejected("fileMode=null", SpoolQueue.builder(directory).fileMode(null));
        assertRejected("directoryMode=rw-r----- must let the owner read, write and search",
                SpoolQueue.builder(directory).directoryMode(PosixFilePermissions.fromString("rw-r-----")));
        assertFalse(Files.exists(directory), "a rejected build creates nothing");
    }

    private static void assertRejected(final String message, final SpoolQueueBuilder builder) {
        final SpoolException e = assertThrows(SpoolException.class, builder::openOrCreate);
        assertTrue(e.getMessage().startsWith(message), e.getMessage());
    }

    @Test
    void shouldKeepAppendingWhileAUserWhoMayOnlyReadTriesToHoldEveryProcessSlot() throws Exception {
        final String why = OtherUser.whyNot();
        Assumptions.assumeTrue(why == null, () -> "skipped: " + why);
        final Path directory = tempDir.resolve("q");
        try (SpoolQueue queue = SpoolQueue.builder(directory).chunkLength(1 << 20).openOrCreate()) {
            appendOne(queue);
        }
        Files.setPosixFilePermissions(tempDir, PosixFilePermissions.fromString("rwxr-xr-x"));
        ReadOnlyQueueTest.giveGroup(directory);
        final String classPath = OtherUser.readableClassPath(tempDir.resolve("cp"));
        try (ChildJvm squatter = ChildJvm.startWrapped(OtherUser.asNobody(), classPath, ReadOnlyMains.SlotSquatter.class,
                tempDir.resolve("squatter.err"), directory.toString())) {
            final String line = squatter.awaitLine("LOCK", 60, TimeUnit.SECONDS);
            assertTrue(line.startsWith("LOCK denied") && line.contains("AccessDeniedException"), line);
        }
        try (SpoolQueue queue = SpoolQueue.open(directory)) {
            appendOne(queue);
        }

        // the attack the mode prevents: with a lock file its readers may open, one reader blocks every writer
        final Set<PosixFilePermission> readable = PosixFilePermissions.fromString("rw-r-----");
        Files.setPosixFilePermissions(directory.resolve("metadata.lock"), readable);
        try (ChildJvm squatter = ChildJvm.startWrapped(OtherUser.asNobody(), classPath, ReadOnlyMains.SlotSquatter.class,
                tempDir.resolve("squatter2.err"), directory.toString());
             SpoolQueue queue = SpoolQueue.open(directory)) {
            assertEquals("LOCK held", squatter.awaitLine("LOCK", 60, TimeUnit.SECONDS));
            final SpoolException e = assertThrows(SpoolException.class, () -> appendOne(queue));
            assertTrue(e.getMessage().contains("process slots"), e.getMessage());
        }
    }
}
