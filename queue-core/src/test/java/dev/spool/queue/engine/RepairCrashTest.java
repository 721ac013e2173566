package dev.spool.queue.engine;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.Messages;
import dev.spool.queue.RollCycle;
import dev.spool.queue.Soak;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.internal.QueueInternals;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * kill -9 of a process in the middle of repairs, many times: once the next writer has opened the queue, each of the
 * damaged excerpts is as it was or repaired, never half written, and a repair's excerpts are repaired together (the
 * damaged ones are always a prefix: the child damages them in order, and a repair cut short is finished by its
 * journal). 10 kills in every build, 300 with {@code -Pslow}.
 */
@Tag("slow")
class RepairCrashTest extends SpoolTestBase {
    private static final int[] DAMAGED = {7, 61, 140};

    /** @return the body the parent stored for {@code index} in {@code bodies}, or null. */
    static byte[] readBody(final Path bodies, final long index) {
        try {
            return Files.readAllBytes(bodies.resolve(Long.toHexString(index)));
        } catch (NoSuchFileException e) {
            return null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Test
    void shouldLeaveEachDamagedExcerptAsItWasOrRepairedWhateverMomentTheRepairIsKilledAt() throws Exception {
        final Path queueDirectory = tempDir.resolve("queue");
        final Path bodies = Files.createDirectories(tempDir.resolve("bodies"));
        try (SpoolQueue queue = SpoolQueue.builder(queueDirectory).rollCycle(RollCycle.DAILY).checksums(true).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final byte[] message = new byte[3000];
            for (int i = 0; i < 200; i++) {
                final int length = Messages.lengthOf(1, i, message.length);
                Messages.encode(message, length, 1, i);
                appender.append(message, 0, length);
            }
            try (ExcerptTailer tailer = queue.unwrap(QueueInternals.class).createBodyTailer()) {
                while (tailer.read((bytes, offset, length, index) -> {
                    final byte[] body = new byte[length];
                    bytes.read(offset, body, 0, length);
                    try {
                        Files.write(bodies.resolve(Long.toHexString(index)), body);
                    } catch (IOException e) {
                        throw new UncheckedIOException(e);
                    }
                })) {
                    assertFalse(Thread.currentThread().isInterrupted());
                }
            }
        }
        final Path cycleFile;
        try (var files = Files.list(queueDirectory)) {
            cycleFile = files.filter(f -> f.toString().endsWith(RollCycle.FILE_SUFFIX)).findFirst().orElseThrow();
        }
        final byte[] original = Files.readAllBytes(cycleFile);
        final long[] regions = new long[DAMAGED.length];
        final List<String> damage = new ArrayList<>();
        for (int i = 0; i < DAMAGED.length; i++) {
            regions[i] = headerPosition(original, DAMAGED[i]);
            // a byte in the middle of the payload: the region a repair rewrites is the whole body
            final long at = regions[i] + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET + 5;
            damage.add(at + ":" + ((original[(int) at] ^ 0x5A) & 0xFF));
        }
        final SplittableRandom random = new SplittableRandom(Long.getLong("spool.crash.seed", 20261126L));
        final int kills = Soak.count(10, 300);
        expectWarning("is applied again");
        int repairedAtKill = 0;
        for (int kill = 0; kill < kills; kill++) {
            final List<String> args = new ArrayList<>(List.of(queueDirectory.toString(), cycleFile.toString(), bodies.toString()));
            args.addAll(damage);
            try (ChildJvm child = ChildJvm.start(RepairCrashMain.class, tempDir.resolve("child-" + kill + ".stderr"),
                    args.toArray(String[]::new))) {
                child.awaitLine("READY", 60, TimeUnit.SECONDS);
                Thread.sleep(random.nextInt(200));
                child.kill();
            }
            // the next writer to open the queue finishes a repair the kill cut short
            SpoolQueue.builder(queueDirectory).open().close();
            final byte[] after = Files.readAllBytes(cycleFile);
            boolean repairedSeen = false;
            for (int i = 0; i < DAMAGED.length; i++) {
                final int from = (int) regions[i];
                final int to = from + ExcerptDescriptor.alignedLength(ExcerptDescriptor.length(
                        ByteBuffer.wrap(original).order(ByteOrder.LITTLE_ENDIAN).getInt(from)));
                final boolean repaired = Arrays.equals(original, from, to, after, from, to);
                final long at = Long.parseLong(damage.get(i).split(":")[0]);
                final byte[] damaged = Arrays.copyOfRange(original, from, to);
                damaged[(int) (at - from)] = (byte) Integer.parseInt(damage.get(i).split(":")[1]);
                assertTrue(repaired || Arrays.equals(damaged, 0, damaged.length, after, from, to),
                        "kill " + kill + ": excerpt " + DAMAGED[i] + " is neither as it was nor repaired");
                assertFalse(repairedSeen && !repaired, "kill " + kill + ": excerpt " + DAMAGED[i]
                        + " is damaged after a repaired one: a repair was left half done");
                repairedSeen |= repaired;
                if (i == DAMAGED.length - 1 && repaired) {
                    repairedAtKill++;
                }
            }
            // every other byte is as it was
            final byte[] masked = after.clone();
            for (final long region : regions) {
                final int from = (int) region;
                final int to = from + ExcerptDescriptor.alignedLength(ExcerptDescriptor.length(
                        ByteBuffer.wrap(original).order(ByteOrder.LITTLE_ENDIAN).getInt(from)));
                System.arraycopy(original, from, masked, from, to - from);
            }
            assertArrayEquals(original, masked, "kill " + kill + ": nothing but the damaged excerpts changed");
        }
        assertTrue(repairedAtKill > 0, "some kill found the repair complete");
        if (kills >= 100) {
            assertTrue(logged("is applied again"), "some kill cut a repair short after its journal was written");
        }
    }

    private static long headerPosition(final byte[] file, final int n) {
        final ByteBuffer buffer = ByteBuffer.wrap(file).order(ByteOrder.LITTLE_ENDIAN);
        long position = CycleDescriptor.DATA_OFFSET;
        int sequence = 0;
        while (true) {
            final int header = buffer.getInt((int) position);
            if (ExcerptDescriptor.isData(header) && sequence++ == n) {
                return position;
            }
            position += ExcerptDescriptor.alignedLength(ExcerptDescriptor.length(header));
        }
    }
}
