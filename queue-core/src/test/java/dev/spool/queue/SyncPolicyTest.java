package dev.spool.queue;

import org.junit.jupiter.api.Test;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

class SyncPolicyTest extends SpoolTestBase {
    private static final long LARGE = 1_000_000;

    private SpoolQueue open(final SyncPolicy policy) {
        return SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).syncPolicy(policy).openOrCreate();
    }

    private static byte[] order(final long notional) {
        final byte[] bytes = new byte[16];
        for (int i = 0; i < Long.BYTES; i++) {
            bytes[i] = (byte) (notional >>> (8 * i));
        }
        return bytes;
    }

    @Test
    void shouldRecordEveryMessageAsSyncedWithSyncEveryMessage() {
        try (SpoolQueue queue = open(SyncPolicy.everyMessage()); ExcerptAppender appender = queue.createAppender()) {
            assertEquals(-1, queue.lastSyncedIndex());
            for (int i = 0; i < 5; i++) {
                final long index = appender.append(order(i));
                assertEquals(index, queue.lastSyncedIndex());
            }
        }
    }

    @Test
    void shouldSyncOnlyWhenTheContentAsksForIt() {
        final SyncPolicy largeOrders = SyncPolicy.when((bytes, offset, length) -> bytes.readLong(offset) >= LARGE);
        try (SpoolQueue queue = open(largeOrders); ExcerptAppender appender = queue.createAppender()) {
            appender.append(order(10));
            appender.append(order(20));
            assertEquals(-1, queue.lastSyncedIndex(), "small orders are not synced");
            final long large = appender.append(order(LARGE));
            assertEquals(large, queue.lastSyncedIndex(), "the large order and everything before it are on disk");
            appender.append(order(30));
            assertEquals(large, queue.lastSyncedIndex());
        }
    }

    @Test
    void shouldSyncWhenTheCumulativeValueCrossesTheThreshold() {
        final SyncPolicy notional = SyncPolicy.whenCumulative((bytes, offset, length) -> bytes.readLong(offset), 100);
        try (SpoolQueue queue = open(notional); ExcerptAppender appender = queue.createAppender()) {
            appender.append(order(40));
            appender.append(order(40));
            assertEquals(-1, queue.lastSyncedIndex());
            final long crossing = appender.append(order(40));
            assertEquals(crossing, queue.lastSyncedIndex(), "40 + 40 + 40 reaches 100");
            appender.append(order(90));
            assertEquals(crossing, queue.lastSyncedIndex(), "the sum starts again after a sync");
            final long next = appender.append(order(10));
            assertEquals(next, queue.lastSyncedIndex());
        }
    }

    @Test
    void shouldCombinePoliciesFirstThatFiresWins() {
        final SyncPolicy policy = SyncPolicy.everyMessages(3)
                .or(SyncPolicy.when((bytes, offset, length) -> bytes.readLong(offset) >= LARGE));
        try (SpoolQueue queue = open(policy); ExcerptAppender appender = queue.createAppender()) {
            appender.append(order(1));
            final long large = appender.append(order(LARGE));
            assertEquals(large, queue.lastSyncedIndex());
            appender.append(order(1));
            appender.append(order(1));
            assertEquals(large, queue.lastSyncedIndex(), "counting restarted at the content-triggered sync");
            final long third = appender.append(order(1));
            assertEquals(third, queue.lastSyncedIndex());
        }
    }

    @Test
    void shouldNotCountAnAsynchronousFlushAsSynced() {
        try (SpoolQueue queue = open(SyncPolicy.async()); ExcerptAppender appender = queue.createAppender()) {
            appender.append(order(1));
            assertEquals(-1, queue.lastSyncedIndex());
            final long last = appender.append(order(2));
            assertEquals(last, appender.sync(), "an explicit sync covers everything so far");
            assertEquals(last, queue.lastSyncedIndex());
        }
    }

    @Test
    void shouldLetAnotherThreadAwaitAnIndexOnDisk() throws Exception {
        try (SpoolQueue queue = open(SyncPolicy.none());
             ExcerptAppender appender = queue.createAppender()) {
            final long index = appender.append(order(1));
            assertFalse(queue.awaitSynced(index, 10, TimeUnit.MILLISECONDS), "nothing synced it yet");
            final Thread syncer = new Thread(() -> {
                try (ExcerptAppender other = queue.createAppender()) {
                    other.sync();
                }
            });
            syncer.start();
            assertTrue(queue.awaitSynced(index, 10, TimeUnit.SECONDS));
            syncer.join();
        }
    }

    @Test
    void shouldSyncWhatIsLeftOfACycleBeforeMovingOn() {
        final ManualClock clock = new ManualClock(1_700_000_000_000L);
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).rollCycle(RollCycle.SECONDLY)
                .epochClock(clock).syncPolicy(SyncPolicy.everyMessages(1_000)).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            appender.append(order(1));
            clock.advance(1_000);
            appender.append(order(2));
            assertEquals(-1, queue.lastSyncedIndex(), "the policy has not fired");
            final long last = appender.sync();
            assertEquals(last, queue.lastSyncedIndex());
        }
    }

    @Test
    void shouldRejectNonsensePolicies() {
        assertThrows(SpoolException.class, () -> SyncPolicy.everyMessages(0));
        assertThrows(SpoolException.class, () -> SyncPolicy.every(0, TimeUnit.SECONDS));
        assertThrows(SpoolException.class, () -> SyncPolicy.whenCumulative((b, o, l) -> 1, 0));
        assertFalse(SyncPolicy.none().needsMsync());
        assertTrue(SyncPolicy.async().needsMsync());
    }
}
