package dev.spool.replication;

import dev.spool.queue.SpoolException;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.spool.replication.Replicas.*;
import static org.junit.jupiter.api.Assertions.*;

/** One primary, two sinks, in one JVM on loopback: independence of the replicas, the quorum forms, lag, failover. */
class MultiReplicaTest extends SpoolTestBase {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);

    private ReplicationSink sink(final String name, final int port, final Duration heartbeat) {
        return ReplicationSink.builder(tempDir.resolve(name)).sharedSecret(Replicas.SECRET).queueSettings(b -> b.chunkLength(1 << 20))
                .port(port).heartbeatInterval(heartbeat).start();
    }

    private static ReplicationSource.Builder source(final SpoolQueue queue, final Duration heartbeat,
                                                    final InetSocketAddress first, final InetSocketAddress... more) {
        return ReplicationSource.builder(queue, first, more).sharedSecret(Replicas.SECRET).heartbeatInterval(heartbeat)
                .reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(100));
    }

    private static InetSocketAddress viaProxy(final Proxy proxy) {
        return new InetSocketAddress(InetAddress.getLoopbackAddress(), proxy.port());
    }

    @Test
    void shouldKeepReplicatingToOneReplicaWhileTheOtherStopsReadingAndNeverHoldBackTheWriter() throws Exception {
        // the paused link is silent both ways: the source, and on a slow machine the sink too, may give up on it
        expectWarning("no frame from");
        expectWarning(" lost: ");
        final Duration heartbeat = Duration.ofSeconds(3);
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink blocked = sink("blocked", 0, heartbeat); ReplicationSink live = sink("live", 0, heartbeat);
             Proxy proxy = new Proxy(blocked.address().getPort());
             ReplicationSource source = source(primary, heartbeat, viaProxy(proxy), live.address()).start();
             CommitWaiter waiter = source.commitWaiter(appender)) {
            append(appender, 0, 100);
            await(() -> source.ackedIndex(0) == primary.lastIndex() && source.ackedIndex(1) == primary.lastIndex(),
                    "both replicas acknowledge the first 100");
            assertEquals(2, source.connectedReplicas());
            final long before = primary.lastIndex();
            proxy.pause();
            // far more than the socket buffers of the paused path hold: its sends stop moving
            final long written = 50_000;
            append(appender, 100, 100 + written);
            final long last = primary.lastIndex();
            assertTrue(waiter.await(last, CommitStage.ACKED, 30, TimeUnit.SECONDS), "the live replica acknowledges all");
            assertEquals(last, source.ackedIndex(1));
            assertEquals(last, live.lastIndex());
            assertTrue(source.isConnected(0), "the paused replica is still connected within its heartbeat timeout");
            assertTrue(source.ackedIndex(0) < last, "the paused replica acknowledged " + source.ackedIndex(0));
            assertTrue(source.sentIndex(0) < last, "the paused replica's sends stopped at " + source.sentIndex(0));
            assertTrue(source.unackedBytes(0) > 0, "the paused replica lags in bytes");
            assertEquals(0, source.unackedBytes(1), "the live replica has acknowledged every byte read for it");
            assertTrue(source.ackedIndex(0) >= before);
            assertFalse(waiter.isCommitted(last, CommitStage.ACKED_BY_QUORUM), "2 of 2: the paused one has not");
            // all connected: the paused replica is dropped after three silent heartbeats, then no longer counts
            assertTrue(waiter.await(last, CommitStage.ACKED_BY_ALL, 30, TimeUnit.SECONDS));
            assertEquals(1, source.connectedReplicas());
            proxy.resume();
            assertTrue(waiter.await(last, CommitStage.ACKED_BY_QUORUM, 30, TimeUnit.SECONDS),
                    "the paused replica catches up once it reads again");
            assertEquals(last, Failover.quorumAckedIndex(primary));
            assertEquals(0, source.unackedBytes(0));
            assertNull(source.failure());
        }
        try (SpoolQueue primary = open(tempDir.resolve("primary")); SpoolQueue blocked = open(tempDir.resolve("blocked"));
             SpoolQueue live = open(tempDir.resolve("live"))) {
            assertEquals(50_100, assertIdentical(primary, blocked));
            assertEquals(50_100, assertIdentical(primary, live));
        }
    }

    @Test
    void shouldCommitAtEachQuorumFormAndFallBackToASyncWhenTooFewReplicasAreConnected() throws Exception {
        expectWarning("connection closed by");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender()) {
            final ReplicationSink b = sink("b", 0, HEARTBEAT);
            final int portB = b.address().getPort();
            try (ReplicationSink c = sink("c", 0, HEARTBEAT);
                 ReplicationSource source = source(primary, HEARTBEAT, b.address(), c.address()).start();
                 CommitWaiter waiter = source.commitWaiter(appender)) {
                assertEquals(2, source.ackQuorum(), "the default quorum is a majority: 2 of 2");
                long index = appender.append(message(0));
                assertTrue(waiter.await(index, CommitStage.ACKED_BY_QUORUM, 30, TimeUnit.SECONDS));
                assertTrue(waiter.await(index, CommitStage.ACKED_BY_ALL, 30, TimeUnit.SECONDS));
                assertEquals(index, b.lastIndex());
                assertEquals(index, c.lastIndex());
                assertEquals(index, Failover.quorumAckedIndex(primary));

                b.close();
                await(() -> source.connectedReplicas() == 1, "the source sees replica b gone");
                assertFalse(source.isConnected(0));
                assertTrue(source.isConnected(1));
                index = appender.append(message(1));
                assertTrue(waiter.await(index, CommitStage.ACKED, 30, TimeUnit.SECONDS), "c acknowledges");
                assertTrue(waiter.await(index, CommitStage.ACKED_BY_ALL, 30, TimeUnit.SECONDS), "c is all that is connected");
                assertFalse(waiter.await(index, CommitStage.ACKED_BY_QUORUM, 200, TimeUnit.MILLISECONDS),
                        "one replica of the two it needs");
                assertTrue(primary.lastSyncedIndex() < index);
                assertTrue(waiter.await(index, CommitStage.ACKED_BY_QUORUM_OR_SYNCED, 30, TimeUnit.SECONDS));
                assertTrue(primary.lastSyncedIndex() >= index, "fewer than k connected: synced instead");
                assertTrue(waiter.await(index, CommitStage.ACKED_BY_ALL_OR_SYNCED, 30, TimeUnit.SECONDS));

                try (ReplicationSink again = sink("b", portB, HEARTBEAT)) {
                    assertTrue(waiter.await(index, CommitStage.ACKED_BY_QUORUM, 30, TimeUnit.SECONDS),
                            "b is back and catches up");
                    assertEquals(index, again.lastIndex());
                    assertEquals(index, Failover.quorumAckedIndex(primary));
                    index = appender.append(message(2));
                    final long synced = primary.lastSyncedIndex();
                    assertTrue(waiter.await(index, CommitStage.ACKED_BY_QUORUM_OR_SYNCED, 30, TimeUnit.SECONDS));
                    assertEquals(synced, primary.lastSyncedIndex(), "k connected: acknowledged, not synced");
                }
            }
        }
    }

    @Test
    void shouldCountAnAckQuorumOfOneOfTwo() throws Exception {
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
             ReplicationSink c = sink("c", 0, HEARTBEAT)) {
            final InetSocketAddress nobody = new InetSocketAddress(InetAddress.getLoopbackAddress(), freePort());
            try (ReplicationSource source = source(primary, HEARTBEAT, nobody, c.address()).ackQuorum(1).start();
                 CommitWaiter waiter = source.commitWaiter(appender)) {
                final long index = appender.append(message(0));
                assertTrue(waiter.await(index, CommitStage.ACKED_BY_QUORUM, 30, TimeUnit.SECONDS));
                assertEquals(index, Failover.quorumAckedIndex(primary));
                assertEquals(-1, source.ackedIndex(0));
                assertFalse(source.isConnected(0));
                assertNull(source.failure(0), "a sink that refuses connections is retried, not given up");
            }
        }
    }

    @Test
    void shouldStopOnlyTheReplicaHoldingAnotherQueueAndRefuseAQuorumThatCanNoLongerBeReached() throws Exception {
        expectWarning("has queue id");
        try (SpoolQueue other = open(tempDir.resolve("other")); ExcerptAppender otherAppender = other.createAppender();
             ReplicationSink x = sink("x", 0, HEARTBEAT)) {
            try (ReplicationSource first = source(other, HEARTBEAT, x.address()).start()) {
                otherAppender.append(message(0));
                await(() -> x.lastIndex() == other.lastIndex(), "x holds the other queue");
            }
            try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender();
                 ReplicationSink y = sink("y", 0, HEARTBEAT);
                 ReplicationSource source = source(primary, HEARTBEAT, x.address(), y.address()).start();
                 CommitWaiter waiter = source.commitWaiter(appender)) {
                final long index = appender.append(message(0));
                assertTrue(waiter.await(index, CommitStage.ACKED, 30, TimeUnit.SECONDS), "y acknowledges");
                await(() -> source.failure(0) != null, "replication to x stops for good");
                assertTrue(source.failure(0).getMessage().contains("has queue id"), source.failure(0).getMessage());
                assertNull(source.failure(), "the source goes on with y");
                assertEquals(1, source.runningReplicas());
                final ReplicationException refused = assertThrows(ReplicationException.class,
                        () -> waiter.await(index, CommitStage.ACKED_BY_QUORUM, 30, TimeUnit.SECONDS));
                assertTrue(refused.getMessage().contains("will not be acknowledged by 2 replicas"), refused.getMessage());
                assertTrue(waiter.await(index, CommitStage.ACKED_BY_ALL, 30, TimeUnit.SECONDS));
                final long next = appender.append(message(1));
                assertTrue(waiter.await(next, CommitStage.ACKED, 30, TimeUnit.SECONDS));
                assertEquals(next, y.lastIndex());
            }
        }
    }

    @Test
    void shouldValidateTheSinksAndTheAckQuorumAtStart() throws Exception {
        try (SpoolQueue primary = open(tempDir.resolve("primary"))) {
            final InetSocketAddress a = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7001);
            final InetSocketAddress b = new InetSocketAddress(InetAddress.getLoopbackAddress(), 7002);
            final SpoolException tooMany = assertThrows(SpoolException.class,
                    () -> ReplicationSource.builder(primary, a, b).ackQuorum(3).start());
            assertTrue(tooMany.getMessage().contains("ackQuorum=3 with 2 sinks"), tooMany.getMessage());
            final SpoolException twice = assertThrows(SpoolException.class,
                    () -> ReplicationSource.builder(primary, a, b, a).start());
            assertTrue(twice.getMessage().contains("a sink is given twice"), twice.getMessage());
            final SpoolException zero = assertThrows(SpoolException.class,
                    () -> ReplicationSource.builder(primary, a).ackQuorum(0));
            assertTrue(zero.getMessage().contains("ackQuorum=0"), zero.getMessage());
        }
    }

    @Test
    void shouldChooseTheMostAdvancedReplicaAndRefuseAReplicaAheadOfALesserOnePromoted() throws Exception {
        expectWarning("connection closed by");
        expectWarning("is ahead of the source");
        try (SpoolQueue primary = open(tempDir.resolve("primary")); ExcerptAppender appender = primary.createAppender()) {
            try (ReplicationSink b = sink("b", 0, HEARTBEAT); ReplicationSink c = sink("c", 0, HEARTBEAT);
                 ReplicationSource source = source(primary, HEARTBEAT, b.address(), c.address()).start()) {
                append(appender, 0, 100);
                await(() -> b.lastIndex() == primary.lastIndex() && c.lastIndex() == primary.lastIndex(), "both have 100");
                c.close();
                append(appender, 100, 150);
                await(() -> b.lastIndex() == primary.lastIndex(), "b has 150");
            }
        }
        try (SpoolQueue b = open(tempDir.resolve("b")); SpoolQueue c = open(tempDir.resolve("c"))) {
            assertSame(b, Failover.mostAdvanced(List.of(c, b)), "b holds 150 excerpts, c 100");
            try (SpoolQueue other = open(tempDir.resolve("other"))) {
                final SpoolException notReplica = assertThrows(SpoolException.class,
                        () -> Failover.mostAdvanced(List.of(b, other)));
                assertTrue(notReplica.getMessage().contains("not a replica"), notReplica.getMessage());
            }
            // the wrong choice: c promoted, b holds excerpts c lacks, and is refused, never merged
            assertEquals(1, Failover.promote(c));
        }
        final long bLast;
        try (SpoolQueue b = open(tempDir.resolve("b"))) {
            bLast = b.lastIndex();
        }
        try (SpoolQueue c = open(tempDir.resolve("c")); ExcerptAppender appender = c.createAppender();
             ReplicationSink b = sink("b", 0, HEARTBEAT);
             ReplicationSource source = source(c, HEARTBEAT, b.address()).start()) {
            appender.append(message(10_000));
            await(() -> source.failure() != null, "the source refuses b");
            final String message = source.failure().getMessage();
            assertTrue(message.contains("is ahead of the source"), message);
            assertTrue(message.contains("its last index is 0x" + Long.toHexString(bLast) + " (cycle "), message);
            assertEquals(bLast, b.lastIndex(), "b is untouched");
        }
        try (SpoolQueue b = open(tempDir.resolve("b"))) {
            assertEquals(0, Failover.term(b), "b did not take the term of a source it refused");
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
