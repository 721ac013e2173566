package dev.spool.ringbuffer;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.Messages;
import dev.spool.queue.QueueMXBean;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.QueueInternals;

import org.agrona.concurrent.BackoffIdleStrategy;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/** Entry points of the child JVMs the multi-process ring tests start. Each prints what the parent waits for. */
final class RingChildMains {
    private RingChildMains() {
    }

    static SpoolQueue openQueue(final String directory) {
        return SpoolQueue.builder(Path.of(directory)).chunkLength(1 << 20).openOrCreate();
    }

    /** An async queue that opens and owns its queue, so it reads the ring with queue indices. */
    static AsyncQueue openAsync(final String directory, final String ringPath, final String capacity, final int batch) {
        return AsyncQueue.builder(SpoolQueue.builder(Path.of(directory)).chunkLength(1 << 20)).ringPath(Path.of(ringPath)).ringCapacity(Integer.parseInt(capacity)).drainBatch(batch)
                .backPressure(BackPressure.awaitThenThrow(Duration.ofSeconds(120),
                        () -> new BackoffIdleStrategy(100, 100, 1_000, 1_000_000))).build();
    }

    /** {@code queueDir ringPath capacity writer count}: appends self-checking messages into the ring, then exits. */
    static final class Producer {
        public static void main(final String[] args) {
            final int writer = Integer.parseInt(args[3]);
            final int count = Integer.parseInt(args[4]);
            final AsyncQueue async = openAsync(args[0], args[1], args[2], 16);
            try (AsyncAppender appender = async.createAppender()) {
                final byte[] message = new byte[100];
                for (int sequence = 0; sequence < count; sequence++) {
                    final int length = Messages.lengthOf(writer, sequence, message.length);
                    Messages.encode(message, length, writer, sequence);
                    appender.append(message, 0, length);
                    if (sequence % 1000 == 999) {
                        System.out.println("APPENDED " + (sequence + 1));
                    }
                }
            }
            System.out.println("DONE");
            // the drainer is another process: leave the ring to it
            async.close(Duration.ZERO);
        }
    }

    /** {@code queueDir ringPath capacity batch}: drains the ring into the queue on the drainer thread until killed. */
    static final class Drain {
        public static void main(final String[] args) {
            final AsyncQueue async = openAsync(args[0], args[1], args[2], Integer.parseInt(args[3]));
            async.startDrainer();
            System.out.println("DRAINING");
            while (true) {
                LockSupport.park();
            }
        }
    }

    /** {@code queueDir ringPath capacity}: takes the ring's drainer lock and never drains, until killed. */
    static final class IdleDrainer {
        public static void main(final String[] args) {
            final AsyncQueue async = openAsync(args[0], args[1], args[2], 16);
            async.createDrainer();
            System.out.println("HOLDING");
            while (true) {
                LockSupport.park();
            }
        }
    }

    /**
     * {@code ringPath capacity}: takes the space of a 64-byte claim with the tail swap only, as a producer killed
     * before its header swap, and waits to be killed.
     */
    static final class HeaderlessClaimer {
        public static void main(final String[] args) {
            try (RingBuffer ring = RingBuffer.open(Path.of(args[0]), Integer.parseInt(args[1]))) {
                System.out.println("RESERVED " + ring.claimWithoutHeader(64));
                while (true) {
                    LockSupport.park();
                }
            }
        }
    }

    /**
     * {@code queueDir ringPath capacity}: opens an async queue on the ring (a producer slot, no drainer), prints
     * {@code OPEN}, and closes it cleanly and exits when a line arrives on standard input.
     */
    static final class HoldUntilTold {
        public static void main(final String[] args) throws java.io.IOException {
            final AsyncQueue async = openAsync(args[0], args[1], args[2], 16);
            System.out.println("OPEN");
            new java.io.BufferedReader(new java.io.InputStreamReader(System.in, java.nio.charset.StandardCharsets.UTF_8)).readLine();
            async.close();
            System.out.println("CLOSED");
        }
    }

    /** {@code ringPath capacity}: claims 64 bytes, writes half of them and waits to be killed. */
    static final class ClaimHolder {
        public static void main(final String[] args) {
            try (RingBuffer ring = RingBuffer.open(Path.of(args[0]), Integer.parseInt(args[1]), Duration.ofMinutes(10))) {
                final long position = ring.tryClaim(64);
                for (int i = 0; i < 32; i++) {
                    ring.buffer().writeByte(ring.payloadOffset(position) + i, (byte) 0x5A);
                }
                System.out.println("CLAIMED " + position);
                while (true) {
                    LockSupport.park();
                }
            }
        }
    }

    /**
     * {@code queueDir ringPath capacity name read committed}: an {@link dev.spool.queue.CommitMode#EXPLICIT} named
     * async tailer reads {@code read} records, commits the {@code committed}-th, prints {@code COMMITTED <index>} and
     * waits to be killed.
     */
    static final class CommittingRingReader {
        public static void main(final String[] args) {
            final AsyncQueue async = openAsync(args[0], args[1], args[2], 16);
            final AsyncTailer tailer = async.createTailer(args[3], dev.spool.queue.CommitMode.EXPLICIT);
            final int read = Integer.parseInt(args[4]);
            final int committed = Integer.parseInt(args[5]);
            long commit = -1;
            for (int i = 1; i <= read; i++) {
                if (!tailer.read((bytes, offset, length, index) -> { })) {
                    throw new IllegalStateException("record " + i + " of " + read + " is not there");
                }
                if (i == committed) {
                    commit = tailer.lastIndex();
                }
            }
            tailer.commit(commit);
            System.out.println("COMMITTED " + commit + " RING " + tailer.ringReads());
            while (true) {
                LockSupport.park();
            }
        }
    }

    /**
     * {@code queueDir ringPath}: an async queue with its MBeans, a drainer and a few records; a metrics thread reads
     * every live view (the ring's stats and head, tail and emptiness, the queue's getters and metrics, the MBeans
     * through the platform server) in a loop while the main thread closes the async queue, and goes on after. Prints
     * {@code HAMMERED reads refused other views} once the metrics thread has seen the close, then for each view read after
     * close {@code REFUSED name} or {@code WRONG name result}, then {@code DONE}. A read of unmapped memory kills
     * this JVM instead.
     */
    static final class ViewsAfterClose {
        public static void main(final String[] args) throws Exception {
            final AsyncQueue async = AsyncQueue.builder(SpoolQueue.builder(Path.of(args[0])).chunkLength(1 << 20)
                    .registerMBean()).ringPath(Path.of(args[1])).ringCapacity(1 << 16).registerMBean().build();
            async.startDrainer();
            final RingStats stats = async.stats();
            final RingBuffer ring = async.ring();
            final SpoolQueue queue = async.queue();
            final QueueMXBean metrics = queue.metrics();
            final ExcerptTailer tailer = queue.createTailer();
            final ExcerptTailer namedTailer = queue.createTailer("named");
            final AsyncTailer asyncTailer = async.createTailer();
            final AsyncTailer namedAsyncTailer = async.createTailer("named-async");
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            final AsyncAppender appender = async.createAppender();
            long lastPosition = -1;
            for (int i = 0; i < 100; i++) {
                lastPosition = appender.append(new byte[64]);
            }
            final long awaited = lastPosition;
            final Map<String, LongSupplier> views = new LinkedHashMap<>();
            views.put("stats.occupancy", stats::occupancy);
            views.put("stats.highWaterMark", stats::highWaterMark);
            views.put("stats.backPressureEvents", stats::backPressureEvents);
            views.put("stats.revokedClaims", stats::revokedClaims);
            views.put("stats.unblockedClaims", stats::unblockedClaims);
            views.put("stats.drainedRecords", stats::drainedRecords);
            views.put("stats.drainedBatches", stats::drainedBatches);
            views.put("stats.recoveredRecords", stats::recoveredRecords);
            views.put("stats.lastDrainedIndex", stats::lastDrainedIndex);
            views.put("stats.drainLagMillis", stats::drainLagMillis);
            views.put("stats.toString", () -> stats.toString().length());
            views.put("async.stats", () -> async.stats().occupancy());
            views.put("ring.headPosition", ring::headPosition);
            views.put("ring.tailPosition", ring::tailPosition);
            views.put("ring.isEmpty", () -> ring.isEmpty() ? 1 : 0);
            views.put("use.ring.tryClaim", () -> ring.tryClaim(8));
            views.put("use.ring.commit", () -> ring.commit(0) ? 1 : 0);
            views.put("use.ring.abort", () -> ring.abort(0) ? 1 : 0);
            views.put("use.ring.read", () -> ring.read((buffer, offset, length, position) -> { }, 1));
            views.put("use.ring.buffer", () -> ring.buffer().readLong(0));
            views.put("queue.lastSyncedIndex", queue::lastSyncedIndex);
            views.put("queue.lastIndex", queue::lastIndex);
            views.put("queue.firstIndex", queue::firstIndex);
            views.put("queue.queueId", () -> queue.queueId().getMostSignificantBits());
            views.put("queue.cycleCapacity", queue::cycleCapacity);
            views.put("queue.tailerNames", () -> queue.tailerNames().size());
            views.put("metrics.lastSyncedIndex", metrics::getLastSyncedIndex);
            views.put("metrics.lastIndex", metrics::getLastIndex);
            views.put("metrics.lastAckedIndex", metrics::getLastAckedIndex);
            views.put("metrics.ackLag", metrics::getAckLag);
            views.put("metrics.role", () -> metrics.getRole().length());
            views.put("metrics.namedTailerIndex", () -> metrics.getNamedTailerIndex().size());
            views.put("metrics.namedTailerLag", () -> metrics.getNamedTailerLag().size());
            views.put("internals.lastAckedIndex", internals::lastAckedIndex);
            views.put("internals.quorumAckedIndex", internals::quorumAckedIndex);
            views.put("internals.term", internals::term);
            views.put("internals.role", () -> internals.role().ordinal());
            views.put("internals.schemaGeneration", () -> internals.schemaFiles().generation());
            views.put("use.appender.append", () -> appender.append(new byte[8]));
            views.put("use.appender.awaitIndex", () -> {
                try {
                    return appender.awaitIndex(awaited, 1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
            });
            views.put("use.appender.buffer", () -> appender.buffer().readLong(0));
            views.put("use.asyncTailer.read", () -> asyncTailer.read((bytes, offset, length, index) -> { }) ? 1 : 0);
            views.put("use.namedAsyncTailer.read", () -> namedAsyncTailer.read((bytes, offset, length, index) -> { }) ? 1 : 0);
            views.put("use.namedTailer.read", () -> namedTailer.read((bytes, offset, length, index) -> { }) ? 1 : 0);
            views.put("use.queue.createTailer(name)", () -> queue.createTailer("later").index());
            views.put("use.tailer.read", () -> tailer.read((bytes, offset, length, index) -> { }) ? 1 : 0);
            views.put("use.tailer.toEnd", () -> tailer.toEnd().index());
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            final Set<ObjectName> beans = server.queryNames(new ObjectName("dev.spool:*"), null);
            final AtomicLong reads = new AtomicLong();
            final AtomicLong refused = new AtomicLong();
            final AtomicLong other = new AtomicLong();
            final Thread hammer = new Thread(() -> {
                long refusedAfterClose = 0;
                while (refusedAfterClose < 10) {
                    for (final Map.Entry<String, LongSupplier> view : views.entrySet()) {
                        if (view.getKey().startsWith("use.")) {
                            // claims, reads and the tailer belong to a producer's or the consumer's thread
                            continue;
                        }
                        try {
                            view.getValue().getAsLong();
                            reads.incrementAndGet();
                        } catch (SpoolException e) {
                            refused.incrementAndGet();
                        } catch (RuntimeException e) {
                            other.incrementAndGet();
                            System.out.println("OTHER " + view.getKey() + " " + e);
                        }
                    }
                    for (final ObjectName bean : beans) {
                        try {
                            server.getAttribute(bean, bean.getKeyProperty("type").equals("Ring") ? "Occupancy" : "LastSyncedIndex");
                        } catch (Exception e) {
                            // unregistered by the close, or refused: either way the JVM lives
                        }
                    }
                    if (ring.isClosed()) {
                        refusedAfterClose++;
                    }
                }
            }, "metrics");
            hammer.start();
            while (reads.get() < 1_000) {
                Thread.onSpinWait();
            }
            async.close();
            hammer.join();
            System.out.println("HAMMERED " + reads.get() + " " + refused.get() + " " + other.get() + " " + views.size());
            for (final Map.Entry<String, LongSupplier> view : views.entrySet()) {
                try {
                    System.out.println("WRONG " + view.getKey() + " " + view.getValue().getAsLong());
                } catch (SpoolException e) {
                    System.out.println((e.getMessage().contains("closed") ? "REFUSED " : "WRONG ") + view.getKey()
                            + " " + e.getMessage());
                } catch (RuntimeException e) {
                    System.out.println("WRONG " + view.getKey() + " " + e);
                }
            }
            System.out.println("DONE");
        }
    }
}
