package dev.spool.queue;

import dev.spool.queue.tools.SpoolTool;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** A full disk is an exception before anything is written, never a SIGBUS, and what was written stays intact. */
class DiskFullTest extends SpoolTestBase {

    @Test
    void shouldFailCleanlyWhenTheDiskIsFullAndKeepWhatWasWritten() throws Exception {
        final Path mount = tempDir.resolve("small-fs");
        Files.createDirectories(mount);
        final boolean mounted = run("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", mount.toString());
        if (!mounted) {
            System.out.println("DiskFullTest: this environment does not allow mounting a 3 MiB tmpfs; the disk-full test did not run");
        }
        assumeTrue(mounted, "cannot mount a small file system here");
        try {
            final Path dir = mount.resolve("q");
            int appended = 0;
            try (SpoolQueue queue = SpoolQueue.builder(dir).chunkLength(1 << 20).openOrCreate();
                 ExcerptAppender appender = queue.createAppender()) {
                final byte[] message = new byte[200];
                SpoolException full = null;
                while (full == null) {
                    final int length = Messages.lengthOf(1, appended, message.length);
                    Messages.encode(message, length, 1, appended);
                    try {
                        appender.append(message, 0, length);
                        appended++;
                    } catch (SpoolException e) {
                        full = e;
                    }
                    assertTrue(appended < 100_000, "a 3 MiB file system never filled");
                }
                assertTrue(full.getMessage().contains("disk full") && full.getMessage().contains(".cycle"), full.getMessage());
                assertTrue(appended > 1000, "appended " + appended + " before the disk filled");
                assertThrows(SpoolException.class, () -> appender.append(new byte[10]), "still full, still no crash");
            }
            try (SpoolQueue queue = SpoolQueue.open(dir); ExcerptTailer tailer = queue.createTailer()) {
                final int[] next = {0};
                while (tailer.read((bytes, offset, length, index) -> {
                    final int[] decoded = Messages.decode(bytes, offset, length, index);
                    assertEquals(next[0]++, decoded[1]);
                })) {
                    // each excerpt checked by the handler
                }
                assertEquals(appended, next[0], "everything appended before the disk filled is intact");
            }
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            assertEquals(0, SpoolTool.run(new String[]{"verify", dir.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)), out.toString(StandardCharsets.UTF_8));
        } finally {
            // lazily: mappings may still be released in the background
            assertTrue(run("umount", "-l", mount.toString()), "umount " + mount);
        }
    }

    private static boolean run(final String... command) throws IOException, InterruptedException {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        process.getInputStream().readAllBytes();
        return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
    }
}
