package dev.spool.queue;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

class GroupCommitTest extends SpoolTestBase {

    private SpoolQueue open(final boolean markers) {
        return SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).syncMarkers(markers).openOrCreate();
    }

    @Test
    void shouldCoverManyWaitingWritersWithOneSync() throws Exception {
        final int writers = 4;
        final ExecutorService pool = Executors.newFixedThreadPool(writers);
        try (SpoolQueue queue = open(false); GroupCommit group = queue.createGroupCommit()) {
            final CountDownLatch appended = new CountDownLatch(writers);
            final List<Future<Boolean>> results = new ArrayList<>();
            for (int i = 0; i < writers; i++) {
                results.add(pool.submit(() -> {
                    try (ExcerptAppender appender = queue.createAppender()) {
                        final long index = appender.append(new byte[]{1, 2, 3});
                        appended.countDown();
                        return group.awaitDurable(index, 30, TimeUnit.SECONDS);
                    }
                }));
            }
            assertTrue(appended.await(30, TimeUnit.SECONDS));
            // every writer has appended: one round of the syncer covers them all
            assertEquals(1, group.doWork());
            for (final Future<Boolean> result : results) {
                assertTrue(result.get(30, TimeUnit.SECONDS));
            }
            assertEquals(1, group.syncCount());
            assertEquals(0, group.doWork(), "nothing left to sync");
            assertEquals(queue.lastIndex(), queue.lastSyncedIndex());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldServeWritersFromItsOwnThread() throws Exception {
        try (SpoolQueue queue = open(false);
             GroupCommit group = queue.startGroupCommit();
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 0; i < 100; i++) {
                final long index = appender.append(new byte[]{(byte) i});
                assertTrue(group.awaitDurable(index, 30, TimeUnit.SECONDS));
                assertTrue(queue.lastSyncedIndex() >= index);
            }
            assertTrue(group.syncCount() <= 100);
        }
    }

    @Test
    void shouldTimeOutWhenNobodySyncs() throws Exception {
        try (SpoolQueue queue = open(false);
             GroupCommit group = queue.createGroupCommit();
             ExcerptAppender appender = queue.createAppender()) {
            final long index = appender.append(new byte[]{1});
            assertFalse(group.awaitDurable(index, 20, TimeUnit.MILLISECONDS));
        }
    }

    @Test
    void shouldShowSyncMarkersToTailersThatAskAndHideThemFromOthers() {
        try (SpoolQueue queue = open(true);
             ExcerptAppender appender = queue.createAppender(SyncPolicy.everyMessages(2));
             ExcerptTailer watching = queue.createTailer();
             ExcerptTailer plain = queue.createTailer()) {
            final long first = appender.append(new byte[]{1});
            final long second = appender.append(new byte[]{2});
            final long third = appender.append(new byte[]{3});
            final List<Long> synced = new ArrayList<>();
            watching.syncMarkers((index, time) -> {
                assertTrue(Math.abs(System.currentTimeMillis() - time) < 60_000);
                synced.add(index);
            });
            final List<Long> read = new ArrayList<>();
            while (watching.read((bytes, offset, length, index) -> read.add(index))) {
                // collect
            }
            assertEquals(List.of(first, second, third), read);
            assertEquals(List.of(second), synced, "one marker, after the sync that covered the second excerpt");
            int plainCount = 0;
            while (plain.read((bytes, offset, length, index) -> { })) {
                plainCount++;
            }
            assertEquals(3, plainCount, "markers are metadata: plain tailers never see them");
        }
    }
}
