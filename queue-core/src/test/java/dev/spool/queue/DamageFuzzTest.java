package dev.spool.queue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Random bit flips and truncations of cycle and metadata files, seen from the tailers' and the appender's side
 * (SpoolToolTest fuzzes {@code verify}): each damaged copy of a queue is read forwards, backwards and by index and
 * appended to, in a child JVM ({@link DamageFuzz}), so that a JVM crash fails the test rather than the test run.
 * Every read returns the original bytes or throws a {@link SpoolException} naming the file; an append never hides
 * what was readable. Without checksums a flip inside a payload only changes that excerpt (see docs/operations/troubleshooting.md);
 * with them, payload flips are a case of their own: each must be detected by every read and by {@code verify}, with
 * no silent wrong read. Repair cases take the undamaged queue for the replica: {@code spool repair} restores what
 * checksums prove exactly and writes nothing else. 60 structural, 40 payload and 40 repair cases in every build, 3,000
 * of each with {@code -Pslow};
 * {@code -Dspool.fuzz.seed=N} replays a seed.
 */
@Tag("slow")
class DamageFuzzTest extends SpoolTestBase {
    /** 2024-01-01T00:00Z. */
    private static final long START_MILLIS = 1_704_067_200_000L;
    private static final long HOUR = 3_600_000L;
    private static final int CYCLES = 3;
    /** An index entry every 4 excerpts: a damaged header is found within 4. */
    static final int INDEX_SPACING = 4;
    /** Eight entries an index block, so that there are several blocks and root entries to damage. */
    static final int INDEX_BLOCK_ENTRIES = 8;

    @Test
    void shouldReadExactBytesOrThrowAClearExceptionWhateverBytesAreDamaged() throws Exception {
        final Path template = tempDir.resolve("template");
        writeTemplate(template, false);
        fuzz(template, Soak.count(60, 3_000), "structure");
    }

    @Test
    void shouldDetectEveryPayloadFlipOfAChecksummedQueueInEveryReadAndInVerify() throws Exception {
        final Path template = tempDir.resolve("template");
        writeTemplate(template, true);
        fuzz(template, Soak.count(40, 3_000), "payload");
    }

    @Test
    void shouldRestoreFromTheReplicaWhatChecksumsProveAndWriteNothingElse() throws Exception {
        final Path template = tempDir.resolve("template");
        writeTemplate(template, true);
        fuzz(template, Soak.count(40, 3_000), "repair");
    }

    /** Runs {@code cases} cases of {@link DamageFuzz} in the given mode over copies of {@code template}. */
    private void fuzz(final Path template, final int cases, final String mode) throws Exception {
        final long seed = Long.getLong("spool.fuzz.seed", Soak.full() ? System.nanoTime() : 20261121L);
        final List<String> failures = new ArrayList<>();
        int next = 0;
        // a child that crashed is replaced by one that goes on from the next case, so one run reports every crash
        while (next < cases) {
            final Path stderr = tempDir.resolve("fuzz-" + next + ".stderr");
            try (ChildJvm child = ChildJvm.start(DamageFuzz.class, stderr, template.toString(),
                    tempDir.resolve("work").toString(), String.valueOf(seed), String.valueOf(next),
                    String.valueOf(cases - next), String.valueOf(START_MILLIS + (CYCLES - 1) * HOUR), mode)) {
                int current = next - 1;
                while (true) {
                    final String line = child.nextLine(120, TimeUnit.SECONDS);
                    if (line == null) {
                        failures.add("case " + current + " of seed " + seed + " ended the JVM (exit status "
                                + child.awaitExit(10, TimeUnit.SECONDS) + "): " + child.stderrTail());
                        next = current + 1;
                        break;
                    }
                    if (line.startsWith("#")) {
                        // a JVM crash report (hs_err) starts on stdout
                        failures.add("case " + current + " of seed " + seed + " crashed the JVM: " + line);
                    }
                    if (line.startsWith("CASE ")) {
                        current = Integer.parseInt(line.substring("CASE ".length()));
                    } else if (line.startsWith("FAIL ")) {
                        failures.add("seed " + seed + " " + line);
                    } else if (line.equals("DONE")) {
                        assertEquals(0, child.awaitExit(60, TimeUnit.SECONDS), "exit status");
                        next = cases;
                        break;
                    }
                }
            }
        }
        if (!failures.isEmpty()) {
            fail(failures.size() + " of " + cases + " damaged queues (" + mode + " cases) broke a rule (replay with -Dspool.fuzz.seed=" + seed
                    + "):\n" + String.join("\n", failures.subList(0, Math.min(failures.size(), 20))));
        }
    }

    /**
     * Three hourly cycles of self-checking messages of 12 to 200 bytes, an index entry every 4 excerpts and 8 entries
     * a block (so most excerpts have index entries and blocks nearby), sync markers, and a named tailer part-way;
     * with a CRC32C per excerpt if {@code checksums}.
     */
    private static void writeTemplate(final Path directory, final boolean checksums) {
        final long[] now = {START_MILLIS};
        try (SpoolQueue queue = SpoolQueue.builder(directory).rollCycle(RollCycle.HOURLY).epochClock(() -> now[0])
                .chunkLength(1 << 20).indexSpacing(INDEX_SPACING).indexBlockEntries(INDEX_BLOCK_ENTRIES).syncMarkers(true)
                .checksums(checksums).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final byte[] message = new byte[200];
            for (int cycle = 0; cycle < CYCLES; cycle++) {
                for (int sequence = 0; sequence < 80; sequence++) {
                    final int length = Messages.lengthOf(cycle, sequence, message.length);
                    Messages.encode(message, length, cycle, sequence);
                    appender.append(message, 0, length);
                    if (sequence % 30 == 29) {
                        appender.sync();
                    }
                }
                now[0] += HOUR;
            }
            try (ExcerptTailer tailer = queue.createTailer("audit")) {
                for (int i = 0; i < 100; i++) {
                    tailer.read((bytes, offset, length, index) -> { });
                }
            }
        }
    }
}
