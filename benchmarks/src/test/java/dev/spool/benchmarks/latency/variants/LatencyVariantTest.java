package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.BenchmarkDirectoryCheck;
import dev.spool.benchmarks.support.VariantNames;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every variant, without JLBH: what is sent is received once, in order, on another thread, and nothing is left
 * behind; a batch variant's reader returns one start time per batch. The JLBH runs themselves are in
 * {@code JlbhSmokeTest}.
 */
@ExtendWith(BenchmarkDirectoryCheck.class)
class LatencyVariantTest {
    /**
     * Messages per variant; a batch variant gets as many, in a batch size's fewer sends. Half of them warm up: 30,000
     * in every build, twice the invocations after which the JIT compiles the send and read loops, and the other
     * 30,000 catch one object per 30 messages or more; with -Pslow ({@code spool.soak=full}) 200,000, which catch one
     * per hundred.
     */
    private static final int MESSAGES = "full".equals(System.getProperty("spool.soak", "short")) ? 200_000 : 60_000;
    /**
     * Bytes a measured window may allocate: one object per message would be 16 B x 100,000. The JIT sometimes
     * allocates a few hundred bytes to a few kilobytes once inside a window (seen: 456 B in the floor, whose loops
     * have no {@code new}; 1,584 B in an e3 variant's reader on a loaded machine), e.g. when a deoptimization
     * re-creates objects that escape analysis had removed. 16 KiB is still a hundredth of one object per message.
     */
    private static final long ONE_OFF_BYTES = 16 * 1024;
    /**
     * Variants whose send and read paths are another project's: their allocation is theirs, reported, not
     * asserted. Chronicle Queue's {@code writeBytes} was seen allocating 1-10 KB per 250,000 messages here, in
     * bursts (index and block bookkeeping), not per message.
     */
    private static final java.util.Set<String> PEERS = java.util.Set.of(VariantNames.CHRONICLE,
            ChronicleSyncVariant.ASYNC, ChronicleSyncVariant.EVERY, ChronicleSyncVariant.CONTENT);
    /**
     * Variants whose every send waits for an msync to the disk: 4,000 messages, as each msync takes 0.1 to a few ms
     * (60,000 of them took a minute on the build machine) and the send and read paths are those of their asynchronous
     * kin, which run the full count.
     */
    private static final java.util.Set<String> SYNCING_EVERY_MESSAGE = java.util.Set.of(SyncVariant.EVERY,
            ChronicleSyncVariant.EVERY, StageVariant.SYNC_ACKED);
    /**
     * Variants that time the publish alone: the reader returns its clock minus what the send took, i.e. the start
     * time moved later by the handoff to the reader, which the sample must not count.
     */
    private static final String PUBLISH_ONLY = "spool-publish";
    private static final long MAX_HANDOFF_NS = 60_000_000_000L;
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

    @Test
    void everyVariantShouldDeliverEveryStartTimeOnceInOrderToAnotherThreadWithoutAllocating() throws Exception {
        for (final Supplier<LatencyVariant> factory : LatencyVariants.ALL) {
            final LatencyVariant variant = factory.get();
            // an MS_SYNC per message takes 0.1 to a few ms on a disk: fewer of them
            final int messages = SYNCING_EVERY_MESSAGE.contains(variant.name()) ? 4_000 : MESSAGES;
            final BenchmarkDirectory directory = BenchmarkDirectory.create("variant-test-");
            try {
                // the rate matters only to a variant that paces work of its own by it (a second process writing)
                variant.rate(50_000);
                variant.init(directory.path(), 140);
                // one sample per send: a message, or a batch
                final int sends = messages / variant.messagesPerSend();
                final long[] received = new long[sends];
                // sends and reads before this one may allocate (class loading, first mappings); none after it
                final int warmedUp = sends / 2;
                final Throwable[] failure = new Throwable[1];
                final long[] readerAllocated = new long[1];
                final Thread reader = new Thread(() -> {
                    try {
                        variant.openReader();
                        try {
                            long allocatedBefore = 0;
                            for (int i = 0; i < sends; ) {
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
                for (int i = 0; i < sends; i++) {
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
                        + (sends - warmedUp) + " sends, " + readerAllocated[0] + " by as many receives and the polls"
                        + " between them";
                if (PEERS.contains(variant.name())) {
                    System.out.println(allocation);
                } else {
                    assertTrue(senderAllocated < ONE_OFF_BYTES && readerAllocated[0] < ONE_OFF_BYTES, allocation);
                }
                for (int i = 0; i < sends; i++) {
                    final long sent = i % 2 == 0 ? i : -1_000_000_000_000L * i;
                    if (variant.name().startsWith(PUBLISH_ONLY)) {
                        final long handoffNs = received[i] - sent;
                        assertTrue(handoffNs >= 0 && handoffNs < MAX_HANDOFF_NS,
                                variant.name() + " send " + i + ": " + received[i] + " for " + sent);
                    } else {
                        assertEquals(sent, received[i], variant.name() + " send " + i);
                    }
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
    }
}
