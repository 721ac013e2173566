package dev.spool.benchmarks;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every variant, without JLBH: what is sent is received once, in order, on another thread, and nothing is left
 * behind. The JLBH runs themselves are in {@link JlbhSmokeTest}.
 */
class LatencyVariantTest {
    private static final int MESSAGES = 200_000;
    /**
     * Bytes a measured window may allocate: one object per message would be 16 B x 100,000. The JIT sometimes
     * allocates up to a kilobyte or so once inside a window (seen: 456 B in the floor, whose loops have no
     * {@code new}; 1,168 B once in sync-async's sends on Java 25, not again in two reruns), e.g. when a
     * deoptimization re-creates objects that escape analysis had removed.
     */
    private static final long ONE_OFF_BYTES = 4096;
    /**
     * Variants whose send and read paths are another project's: their allocation is theirs, reported, not
     * asserted. Chronicle Queue's {@code writeBytes} was seen allocating 1-10 KB per 250,000 messages here, in
     * bursts (index and block bookkeeping), not per message.
     */
    private static final java.util.Set<String> PEERS = java.util.Set.of(LatencyTables.CHRONICLE,
            ChronicleSyncVariant.ASYNC, ChronicleSyncVariant.EVERY, ChronicleSyncVariant.CONTENT);
    /** Variants whose every send waits for an msync to the disk. */
    private static final java.util.Set<String> SYNCING_EVERY_MESSAGE = java.util.Set.of(SyncVariant.EVERY,
            ChronicleSyncVariant.EVERY);
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    @TempDir
    Path base;

    @BeforeEach
    void benchmarkFilesInTempDir() {
        System.setProperty(BenchmarkDirectory.BASE_PROPERTY, base.toString());
    }

    @AfterEach
    void noFileLeftBehind() throws IOException {
        System.clearProperty(BenchmarkDirectory.BASE_PROPERTY);
        try (Stream<Path> files = Files.list(base)) {
            assertEquals(0, files.count(), "benchmark directories left in " + base);
        }
    }

    @Test
    void everyVariantShouldDeliverEveryStartTimeOnceInOrderToAnotherThreadWithoutAllocating() throws Exception {
        for (final Supplier<LatencyVariant> factory : LatencyVariants.ALL) {
            final LatencyVariant variant = factory.get();
            // an MS_SYNC per message takes 0.1 to a few ms on a disk: fewer of them
            final int messages = SYNCING_EVERY_MESSAGE.contains(variant.name()) ? 4_000 : MESSAGES;
            // sends and reads before this one may allocate (class loading, first mappings); none after it
            final int warmedUp = messages / 2;
            final BenchmarkDirectory directory = BenchmarkDirectory.create("variant-test-");
            try {
                variant.init(directory.path(), 140);
                final long[] received = new long[messages];
                final Throwable[] failure = new Throwable[1];
                final long[] readerAllocated = new long[1];
                final Thread reader = new Thread(() -> {
                    try {
                        variant.openReader();
                        try {
                            long allocatedBefore = 0;
                            for (int i = 0; i < messages; ) {
                                if (i == warmedUp) {
                                    allocatedBefore = THREADS.getCurrentThreadAllocatedBytes();
                                }
                                final long startTimeNs = variant.receive();
                                if (startTimeNs != LatencyVariant.NOTHING) {
                                    received[i++] = startTimeNs;
                                }
                            }
                            readerAllocated[0] = THREADS.getCurrentThreadAllocatedBytes() - allocatedBefore;
                            assertEquals(LatencyVariant.NOTHING, variant.receive(), variant.name() + ": one too many");
                        } finally {
                            variant.closeReader();
                        }
                    } catch (RuntimeException | Error e) {
                        failure[0] = e;
                    }
                }, "variant-test-reader");
                reader.start();
                long senderAllocated = 0;
                for (int i = 0; i < messages; i++) {
                    if (i == warmedUp) {
                        senderAllocated = THREADS.getCurrentThreadAllocatedBytes();
                    }
                    // negative and large values too: the start time is any nanoTime
                    variant.send(i % 2 == 0 ? i : -1_000_000_000_000L * i);
                }
                senderAllocated = THREADS.getCurrentThreadAllocatedBytes() - senderAllocated;
                reader.join(60_000);
                assertFalse(reader.isAlive(), variant.name() + ": the reader did not get every message");
                if (failure[0] != null) {
                    throw new AssertionError(variant.name() + ": the reader failed", failure[0]);
                }
                final String allocation = variant.name() + ": " + senderAllocated + " bytes allocated by "
                        + (messages - warmedUp) + " sends, " + readerAllocated[0] + " by as many receives and the polls"
                        + " between them";
                if (PEERS.contains(variant.name())) {
                    System.out.println(allocation);
                } else {
                    assertTrue(senderAllocated < ONE_OFF_BYTES && readerAllocated[0] < ONE_OFF_BYTES, allocation);
                }
                for (int i = 0; i < messages; i++) {
                    assertEquals(i % 2 == 0 ? i : -1_000_000_000_000L * i, received[i], variant.name() + " message " + i);
                }
            } finally {
                variant.close();
                directory.delete();
            }
        }
    }

    @Test
    void theRingShouldRefuseWhenFullAndWrapAround() {
        final SpscLongRing ring = new SpscLongRing(4);
        assertEquals(SpscLongRing.EMPTY, ring.poll());
        for (int round = 0; round < 3; round++) {
            for (int i = 0; i < 4; i++) {
                assertTrue(ring.offer(round * 10 + i));
            }
            assertFalse(ring.offer(99), "full");
            for (int i = 0; i < 4; i++) {
                assertEquals(round * 10 + i, ring.poll());
            }
            assertEquals(SpscLongRing.EMPTY, ring.poll());
        }
    }

    @Test
    void everyVariantShouldHaveAUniqueLowerCaseName() {
        assertEquals(LatencyVariants.names().size(), LatencyVariants.names().stream().distinct().count());
        for (final String name : LatencyVariants.names()) {
            assertEquals(name.toLowerCase(java.util.Locale.ROOT), name);
            assertEquals(name, LatencyVariants.create(name).name());
        }
        for (final LatencyExperiment experiment : LatencyExperiment.ALL) {
            assertEquals(LatencyTables.FLOOR, experiment.variants().get(0), experiment.name() + ": the floor runs first");
            assertTrue(LatencyVariants.names().containsAll(experiment.variants()), experiment.name());
        }
    }
}
