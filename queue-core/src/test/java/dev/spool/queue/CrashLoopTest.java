package dev.spool.queue;

import dev.spool.queue.tools.SpoolTool;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A child JVM appends with a sync policy on a secondly roll cycle and reports each index the queue told it was
 * synced; the parent kills it with SIGKILL at random moments, rolls included. After each kill: verify passes,
 * every reported-synced excerpt is there with its exact bytes, and the next writer appends within a second.
 */
@Tag("slow")
class CrashLoopTest extends SpoolTestBase {

    @Test
    void shouldKeepEverySyncedExcerptThroughKillsAtRandomMoments() throws Exception {
        expectWarning("took over the write lock");
        final int kills = Soak.count(3, 200);
        final Path dir = tempDir.resolve("q");
        final SplittableRandom random = new SplittableRandom(kills);
        final Map<Long, int[]> synced = new HashMap<>();
        long worstRecoveryMs = 0;
        long checked = 0;
        for (int kill = 0; kill < kills; kill++) {
            final int writer = kill;
            try (ChildJvm child = ChildJvm.start(ChildMains.SyncingAppender.class, tempDir.resolve("child.stderr"),
                    dir.toString(), String.valueOf(writer))) {
                final long runFor = TimeUnit.MILLISECONDS.toNanos(100 + random.nextInt(1_500));
                String line = child.awaitLine("SYNCED", 60, TimeUnit.SECONDS);
                final long start = System.nanoTime();
                while (true) {
                    final String[] parts = line.split(" ");
                    synced.put(Long.parseLong(parts[1]), new int[]{writer, Integer.parseInt(parts[2])});
                    if (System.nanoTime() - start > runFor) {
                        break;
                    }
                    line = child.awaitLine("SYNCED", 60, TimeUnit.SECONDS);
                }
                child.kill();
            }
            // verify walks the whole queue: every tenth kill and after the last, to keep the loop linear
            if (kill % 10 == 9 || kill == kills - 1) {
                final ByteArrayOutputStream out = new ByteArrayOutputStream();
                final int status = SpoolTool.run(new String[]{"verify", dir.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                        new PrintStream(out, true, StandardCharsets.UTF_8));
                assertEquals(0, status, "verify after kill " + kill + ": " + out.toString(StandardCharsets.UTF_8));
            }
            try (SpoolQueue queue = SpoolQueue.builder(dir).chunkLength(1 << 20).openOrCreate();
                 ExcerptTailer tailer = queue.createTailer();
                 ExcerptAppender appender = queue.createAppender()) {
                // every excerpt reported synced since the last kill, and a sample of the older ones
                for (final Map.Entry<Long, int[]> entry : synced.entrySet()) {
                    if (entry.getValue()[0] != writer && random.nextInt(100) != 0) {
                        continue;
                    }
                    checked++;
                    assertTrue(tailer.moveToIndex(entry.getKey()), "synced index " + Long.toHexString(entry.getKey()) + " is there");
                    final int[] expected = entry.getValue();
                    assertTrue(tailer.read((bytes, offset, length, index) -> {
                        final byte[] actual = new byte[length];
                        bytes.read(offset, actual, 0, length);
                        final byte[] original = new byte[length];
                        Messages.encode(original, Messages.lengthOf(expected[0], expected[1], 300), expected[0], expected[1]);
                        assertArrayEquals(original, actual, "exact bytes of synced index " + Long.toHexString(index));
                    }));
                }
                final long before = System.nanoTime();
                appender.append(new byte[]{1, 2, 3});
                worstRecoveryMs = Math.max(worstRecoveryMs, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - before));
                assertTrue(worstRecoveryMs < 1_000, "next append after kill " + kill + " took " + worstRecoveryMs + " ms");
            }
        }
        System.out.println("CrashLoopTest: " + kills + " kills, " + synced.size() + " synced excerpts reported, " + checked + " checks, worst recovery "
                + worstRecoveryMs + " ms");
    }
}
