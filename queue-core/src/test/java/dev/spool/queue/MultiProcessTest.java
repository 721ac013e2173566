package dev.spool.queue;

import net.openhft.chronicle.bytes.Bytes;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** Real child JVMs appending, crashing and reading on one queue. */
class MultiProcessTest extends SpoolTestBase {
    private static final int WRITERS = 3;
    private static final int PER_WRITER = 20_000;
    private static final int MAX_LENGTH = 200;

    private Path queueDir() {
        return tempDir.resolve("q");
    }

    private Path stderr() {
        return tempDir.resolve("children.stderr");
    }

    @Test
    void shouldInterleaveConcurrentProcessesWithoutLossOrTearingInIndexOrder() throws Exception {
        try (SpoolQueue queue = ChildMains.open(queueDir().toString());
             ExcerptTailer live = queue.createTailer()) {
            final List<ChildJvm> children = new ArrayList<>();
            try {
                for (int writer = 0; writer < WRITERS; writer++) {
                    children.add(ChildJvm.start(ChildMains.Appender.class, stderr(), queueDir().toString(),
                            String.valueOf(writer), String.valueOf(PER_WRITER), String.valueOf(MAX_LENGTH)));
                }
                for (final ChildJvm child : children) {
                    child.awaitLine("READY", 60, TimeUnit.SECONDS);
                }
                for (final ChildJvm child : children) {
                    child.send("GO");
                }
                // read live while they write: this process sees their appends as they happen
                final int[] nextSequence = new int[WRITERS];
                final long[] previousIndex = {-1};
                int read = 0;
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (read < WRITERS * PER_WRITER) {
                    assertTrue(System.nanoTime() < deadline, "read only " + read + " in 120 s");
                    if (!live.await(1, TimeUnit.SECONDS)) {
                        continue;
                    }
                    assertTrue(live.read((bytes, offset, length, index) -> {
                        final int[] message = Messages.decode(bytes, offset, length, index);
                        assertEquals(nextSequence[message[0]]++, message[1], "each writer's messages stay in its order");
                        if (previousIndex[0] >= 0) {
                            assertEquals(previousIndex[0] + 1, index, "indices are consecutive");
                        }
                        previousIndex[0] = index;
                    }));
                    read++;
                }
                for (final ChildJvm child : children) {
                    child.awaitLine("DONE", 60, TimeUnit.SECONDS);
                    assertEquals(0, child.awaitExit(30, TimeUnit.SECONDS));
                }
                assertFalse(live.read((bytes, offset, length, index) -> fail("nothing beyond what the writers wrote")));
                for (int writer = 0; writer < WRITERS; writer++) {
                    assertEquals(PER_WRITER, nextSequence[writer]);
                }
            } finally {
                for (final ChildJvm child : children) {
                    child.close();
                }
            }
        }
    }

    @Test
    void shouldHideAClaimOfAKilledWriterAndLetTheNextWriterContinueWithinASecond() throws Exception {
        expectWarning("took over the write lock");
        final long claimedAfter;
        try (ChildJvm child = ChildJvm.start(ChildMains.ClaimHolder.class, stderr(), queueDir().toString())) {
            claimedAfter = Long.parseLong(child.awaitLine("CLAIMED", 60, TimeUnit.SECONDS).split(" ")[1]);
            child.kill();
        }
        try (SpoolQueue queue = ChildMains.open(queueDir().toString());
             ExcerptTailer tailer = queue.createTailer();
             ExcerptAppender appender = queue.createAppender()) {
            int read = 0;
            while (tailer.read((bytes, offset, length, index) -> Messages.decode(bytes, offset, length, index))) {
                read++;
            }
            assertEquals(10, read, "the ten committed messages, and nothing of the claim");
            final byte[] message = new byte[50];
            Messages.encode(message, 50, 1, 0);
            final long start = System.nanoTime();
            final long index = appender.append(message);
            final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
            assertTrue(tookMs < 1_000, "the dead holder's lock was recovered in " + tookMs + " ms");
            assertEquals(claimedAfter + 1, index, "the claim's space and sequence went to the next writer");
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            assertEquals(index, tailer.read(into));
            assertEquals(50, into.readRemaining());
        }
    }

    @Test
    @Tag("slow")
    void shouldRecoverFromWritersKilledWhileHoldingTheLockMidCopy() throws Exception {
        expectWarning("took over the write lock");
        final int rounds = Soak.count(3, 50);
        for (int round = 0; round < rounds; round++) {
            try (ChildJvm child = ChildJvm.start(ChildMains.EndlessAppender.class, stderr(), queueDir().toString(),
                    String.valueOf(round))) {
                child.awaitLine("RUNNING", 60, TimeUnit.SECONDS);
                child.kill();
            }
            try (SpoolQueue queue = ChildMains.open(queueDir().toString());
                 ExcerptAppender appender = queue.createAppender();
                 ExcerptTailer tailer = queue.createTailer()) {
                final long start = System.nanoTime();
                final byte[] message = new byte[64];
                Messages.encode(message, 64, 100 + round, 0);
                final long index = appender.append(message);
                final long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                assertTrue(tookMs < 1_000, "append after the kill took " + tookMs + " ms");
                final int[] expected = new int[rounds + 100];
                final long[] last = {-1};
                while (tailer.read((bytes, offset, length, at) -> {
                    final int[] decoded = Messages.decode(bytes, offset, length, at);
                    assertEquals(expected[decoded[0]]++, decoded[1]);
                    last[0] = at;
                })) {
                    // every excerpt checked by the handler
                }
                assertEquals(index, last[0], "the new excerpt follows everything the killed writer published");
            }
        }
    }

    @Test
    void shouldNameEveryMissingJvmFlagInOneMessage() throws Exception {
        try (ChildJvm child = ChildJvm.startWithoutFlags(ChildMains.Opener.class, stderr(), queueDir().toString())) {
            final String line = child.awaitLine("", 60, TimeUnit.SECONDS);
            assertTrue(line.startsWith("FAILED SpoolException: Spool needs these JVM flags"), line);
            for (final String flag : JvmFlags.required()) {
                if (!flag.startsWith("--add-exports=jdk.unsupported") && !flag.startsWith("--enable-native-access")
                        && !flag.startsWith("--sun-misc")) {
                    assertTrue(line.contains(flag), flag + " missing from: " + line);
                }
            }
        }
    }

    @Test
    void shouldRefuseASyncPolicyWhenMsyncWouldSilentlyDoNothing() throws Exception {
        try (ChildJvm child = ChildJvm.start(ChildMains.NoOpMsyncOpener.class, stderr(), queueDir().toString())) {
            final String line = child.awaitLine("", 60, TimeUnit.SECONDS);
            assertTrue(line.startsWith("FAILED SpoolException") && line.contains("needs msync"), line);
        }
    }

    @Test
    void shouldResumeANamedTailerAcrossProcesses() throws Exception {
        final long[] indices = new long[30];
        try (SpoolQueue queue = ChildMains.open(queueDir().toString());
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < indices.length; i++) {
                indices[i] = appender.append(new byte[]{(byte) i});
            }
        }
        try (ChildJvm child = ChildJvm.start(ChildMains.NamedReader.class, stderr(), queueDir().toString(), "billing", "12")) {
            assertEquals("LAST " + indices[11], child.awaitLine("LAST", 60, TimeUnit.SECONDS));
            assertEquals(0, child.awaitExit(30, TimeUnit.SECONDS));
        }
        try (SpoolQueue queue = ChildMains.open(queueDir().toString());
             ExcerptTailer tailer = queue.createTailer("billing")) {
            assertEquals(indices[12], tailer.read(Bytes.allocateElasticOnHeap()));
        }
    }
}
