package dev.spool.benchmarks.demo;

import dev.spool.benchmarks.latency.variants.LatencyVariant;
import dev.spool.benchmarks.latency.variants.LatencyVariants;
import dev.spool.benchmarks.support.MachineFacts;
import dev.spool.benchmarks.support.Replicas;
import dev.spool.benchmarks.support.SendRate;
import dev.spool.benchmarks.support.VariantNames;
import dev.spool.benchmarks.support.Order;
import dev.spool.benchmarks.support.OrderEvents;
import dev.spool.benchmarks.support.Side;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.typed.MethodReader;
import dev.spool.replication.CommitStage;
import dev.spool.replication.CommitWaiter;
import dev.spool.replication.ReplicationSink;
import dev.spool.replication.ReplicationSource;
import dev.spool.ringbuffer.AsyncAppender;
import dev.spool.ringbuffer.AsyncQueue;
import dev.spool.ringbuffer.AsyncQueueBuilder;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.PrintStream;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The main job on embedded defaults. It starts with the machine it runs on (CPUs, memory, JDK, the file systems of
 * the queue and of the ring) and the in-memory floor at the live phase's rate: two threads handing the time through
 * memory, no queue, timed as the live phase is, so that its tail reads as what the machine allows. Then the typed API, as an application uses Spool: an {@code @Events}
 * interface ({@link OrderEvents}) whose writer and reader spool-processor generated at build time, a million orders
 * written and read back with no garbage. Then bytes: a queue in a temporary directory, appended to at a steady rate while a second
 * thread tails it live, timing each message from append to read; then appended to as fast as it goes and read back;
 * then the same through the ring buffer on /dev/shm, drained by its own thread; then replicated to a second queue
 * over loopback TCP, waiting for the replica's acknowledgements. Prints what it achieved and checks that every
 * message came back in order, and that the replica holds the same excerpts at the same indices.
 */
public final class Demo {
    /** The queue MBean attributes the demo prints. */
    private static final String[] METRICS = {"Appends", "AppendedBytes", "LastIndex", "Syncs", "SyncTimeMaxNanos",
        "WriteLockTakeovers", "TornTailRecoveries", "OpenCycleFiles"};

    private static final int MESSAGE_LENGTH = 32;
    private static final int BURST = 5_000_000;
    private static final int WARM_UP = 500_000;
    private static final int PACED = 2_000_000 + WARM_UP;
    private static final int RATE = 250_000;
    private static final int RING_MESSAGES = 2_000_000;
    private static final int REPLICATED = 200_000;
    /** One message in this many is appended and then awaited until the replica acknowledges it. */
    private static final int ACK_SAMPLE = 100;
    private static final int TYPED = 1_000_000;
    /** The floor's messages at {@link #RATE}: 2.4 s, enough for its p99.99, a fraction of the live phase. */
    private static final int FLOOR_WARM_UP = 100_000;
    private static final int FLOOR = 500_000 + FLOOR_WARM_UP;

    private Demo() {
    }

    /**
     * Runs the demo.
     *
     * @param args the options after {@code demo}: none.
     * @param out  where the demo reports.
     * @param err  where errors go.
     * @return the exit status: 0 done and every check passed, 1 a check or the run failed, 2 options given.
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err) {
        if (args.length > 0) {
            err.println("demo takes no options");
            return 2;
        }
        Path directory = null;
        try {
            directory = Files.createTempDirectory("spool-demo-");
            out.println("Spool demo: queue in " + directory + ", " + MESSAGE_LENGTH + "-byte messages");
            out.print(machine(directory, ringDirectory(directory)));
            // before any queue: the floor's figures must not include the write-back of a queue's dirty pages
            final Histogram floor = floor(Files.createDirectory(directory.resolve("floor")));
            final boolean typedInOrder = typed(directory.resolve("typed"), out);
            final boolean inOrder;
            try (SpoolQueue queue = SpoolQueue.builder(directory.resolve("plain")).registerMBean().create()) {
                // the live phase first: a burst leaves hundreds of MB of dirty pages whose write-back stalls later page faults
                inOrder = paced(queue, floor, out);
                burst(queue, out);
                printMetrics(queue.directory(), out);
            }
            final boolean ringInOrder = ring(directory.resolve("async"), out);
            final boolean replicaSame = replicated(directory.resolve("primary"), directory.resolve("replica"), out);
            return typedInOrder && inOrder && ringInOrder && replicaSame ? 0 : 1;
        } catch (IOException | InterruptedException e) {
            err.println("demo failed: " + e);
            return 1;
        } finally {
            delete(directory);
        }
    }

    /**
     * @param queueDirectory the demo's directory, where its queues go.
     * @param ringDirectory  where its ring goes.
     * @return what the demo's figures depend on: CPUs, memory, JDK, and the file systems of the queue and the ring.
     */
    static String machine(final Path queueDirectory, final Path ringDirectory) {
        final int cpus = Runtime.getRuntime().availableProcessors();
        return String.format(Locale.ROOT, "machine: %d CPU%s (%s), %s of memory, %s %s %s, %s %s%n"
                        + "  queues on %s (%s), ring on %s (%s)%n"
                        + "  the figures below are this machine's: every phase spins 2 threads, and below 4 CPUs they"
                        + " share them with%n  the JIT, the garbage collector, the drainer and the kernel's disk"
                        + " write-back%n",
                cpus, cpus == 1 ? "" : "s", MachineFacts.cpuModel(), MachineFacts.memory(),
                System.getProperty("java.vm.vendor"), System.getProperty("java.vm.name"),
                System.getProperty("java.runtime.version"), System.getProperty("os.name"), System.getProperty("os.version"),
                queueDirectory, MachineFacts.fileSystem(queueDirectory), ringDirectory,
                MachineFacts.fileSystem(ringDirectory));
    }

    /**
     * The floor of the live phase: the same rate, pacing and timing, the due time handed from the sending thread to
     * a spinning reader through the in-memory ring of the {@code jlbh} command's {@code floor}, no file at all.
     *
     * @param directory an empty directory, which the floor leaves empty.
     * @return its latencies, in nanoseconds, after its warm-up.
     */
    private static Histogram floor(final Path directory) throws InterruptedException {
        final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final LatencyVariant floor = LatencyVariants.create(VariantNames.FLOOR);
        floor.init(directory, MESSAGE_LENGTH);
        try {
            final Thread reader = new Thread(() -> {
                floor.openReader();
                try {
                    for (int received = 0; received < FLOOR; ) {
                        final long sent = floor.receive();
                        if (sent != LatencyVariant.NOTHING) {
                            if (received++ >= FLOOR_WARM_UP) {
                                latency.recordValue(Math.max(0, System.nanoTime() - sent));
                            }
                        }
                    }
                } finally {
                    floor.closeReader();
                }
            }, "demo-floor-reader");
            reader.start();
            final long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
            final long start = System.nanoTime();
            for (int i = 0; i < FLOOR; i++) {
                final long due = start + i * interval;
                while (System.nanoTime() < due) {
                    Thread.onSpinWait();
                }
                floor.send(due);
            }
            reader.join();
        } finally {
            floor.close();
        }
        return latency;
    }

    /** Writes orders through the generated method writer and reads them back through the generated reader. */
    private static boolean typed(final Path directory, final PrintStream out) {
        final Order order = new Order().set(0, "EURUSD", Side.BUY, 1.0842, 1_000_000);
        final long[] expected = {0};
        final boolean[] inOrder = {true};
        // the application's implementation: the reader passes one reused Order to every call
        final OrderEvents handler = read -> {
            inOrder[0] &= read.id == expected[0] && read.side == Side.BUY && read.instrument.length() == 6;
            expected[0]++;
        };
        try (SpoolQueue queue = SpoolQueue.create(directory);
             ExcerptAppender appender = queue.createAppender(); ExcerptTailer tailer = queue.createTailer()) {
            final OrderEvents orders = appender.methodWriter(OrderEvents.class);
            final long start = System.nanoTime();
            for (int i = 0; i < TYPED; i++) {
                order.id = i;
                orders.order(order);
            }
            final long written = System.nanoTime();
            final MethodReader reader = tailer.methodReader(handler);
            while (reader.readOne()) {
                Thread.onSpinWait();
            }
            final long done = System.nanoTime();
            out.printf("typed: wrote %,d orders with appender.methodWriter(OrderEvents.class) in %,d ms (%.1f ns/order),%n"
                    + "  read them with tailer.methodReader(handler) in %,d ms (%.1f ns/order)%n",
                    TYPED, (written - start) / 1_000_000, (written - start) / (double) TYPED,
                    (done - written) / 1_000_000, (done - written) / (double) TYPED);
        }
        inOrder[0] &= expected[0] == TYPED;
        out.println("  every order read once, in order: " + inOrder[0]);
        return inOrder[0];
    }

    private static void burst(final SpoolQueue queue, final PrintStream out) {
        final byte[] message = new byte[MESSAGE_LENGTH];
        final long[] sum = new long[1];
        final ExcerptHandler reader = (bytes, offset, length, index) -> sum[0] += length;
        try (ExcerptAppender appender = queue.createAppender(); ExcerptTailer tailer = queue.createTailer()) {
            final long start = System.nanoTime();
            for (int i = 0; i < BURST; i++) {
                appender.append(message);
            }
            final long appended = System.nanoTime();
            int read = 0;
            while (tailer.read(reader)) {
                read++;
            }
            final long done = System.nanoTime();
            out.printf("burst: appended %,d in %,d ms (%.1f ns/message), read them back in %,d ms (%.1f ns/message)%n",
                    BURST, (appended - start) / 1_000_000, (appended - start) / (double) BURST,
                    (done - appended) / 1_000_000, (done - appended) / (double) read);
        }
    }

    /** Appends at {@link #RATE} while a tailer thread reads live; latency is measured from the intended send time. */
    private static boolean paced(final SpoolQueue queue, final Histogram floor, final PrintStream out)
            throws InterruptedException {
        final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final long[] state = new long[2];
        final boolean[] inOrder = {true};
        // positioned here, before the first paced append; then handed to the reader thread
        final ExcerptTailer tailer = queue.createTailer().toEnd();
        final Thread reader = new Thread(() -> {
            final ExcerptHandler handler = (bytes, offset, length, index) -> {
                final long sent = bytes.readLong(offset);
                final long sequence = bytes.readLong(offset + Long.BYTES);
                if (sequence >= WARM_UP) {
                    latency.recordValue(Math.max(0, System.nanoTime() - sent));
                }
                inOrder[0] &= sequence == state[0];
                state[0] = sequence + 1;
            };
            try (tailer) {
                while (state[0] < PACED) {
                    tailer.read(handler);
                }
            }
        }, "demo-reader");
        reader.start();
        final byte[] message = new byte[MESSAGE_LENGTH];
        final long interval = TimeUnit.SECONDS.toNanos(1) / RATE;
        final double sentRate;
        try (ExcerptAppender appender = queue.createAppender()) {
            final long start = System.nanoTime();
            for (int i = 0; i < PACED; i++) {
                final long due = start + i * interval;
                while (System.nanoTime() < due) {
                    Thread.onSpinWait();
                }
                // the intended time, not the actual one: a stalled appender shows as latency (no coordinated omission)
                writeLong(message, 0, due);
                writeLong(message, 8, i);
                appender.append(message);
            }
            sentRate = PACED * 1e9 / (System.nanoTime() - start);
        }
        reader.join();
        out.printf("live: %,d messages at %,d msg/s after %,d of warm-up, appender and tailer spinning on 2 threads,%n"
                + "  latency from the intended send time to the read (us):%n", PACED - WARM_UP, RATE, WARM_UP);
        if (!SendRate.held(sentRate, RATE)) {
            out.printf("  WARNING: the appender sent %s msg/s, %.1f%% below the %s msg/s asked for: this machine did not"
                            + " hold the rate,%n  so the appends went out late and the latencies below flatter%n",
                    SendRate.format(sentRate), 100 * (1 - sentRate / RATE), SendRate.format(RATE));
        }
        out.println("  queue " + percentiles(latency));
        out.println("  floor " + percentiles(floor));
        out.printf("  the floor: %,d messages at the same rate, timed the same way, from one thread to another through"
                + " memory,%n  no queue, measured in this run: this machine's own limit. Read the queue's figures"
                + " beside it%n", FLOOR - FLOOR_WARM_UP);
        out.println("  every message read once, in order: " + inOrder[0]);
        out.println("queue: " + queue.cycles().length + " cycle file(s), last index 0x" + Long.toHexString(queue.lastIndex()));
        return inOrder[0];
    }

    /**
     * Appends through an async queue (a ring on /dev/shm, drained into the queue by its own thread) as fast as it
     * goes, closes it (which drains the rest) and reads the queue back.
     */
    private static boolean ring(final Path directory, final PrintStream out) throws IOException {
        final Path ringFile = ringDirectory(directory.getParent())
                .resolve(directory.getParent().getFileName() + ".ring");
        final byte[] message = new byte[MESSAGE_LENGTH];
        final long start;
        final long appended;
        final long drained;
        final String stats;
        try (AsyncQueue async = AsyncQueue.builder(directory).ringPath(ringFile).build()) {
            async.startDrainer();
            try (AsyncAppender appender = async.createAppender()) {
                start = System.nanoTime();
                long position = -1;
                for (int i = 0; i < RING_MESSAGES; i++) {
                    writeLong(message, 0, i);
                    position = appender.append(message);
                }
                appended = System.nanoTime();
                // the last record's queue index is known once the drainer has written it: the drain is complete
                if (appender.awaitIndex(position, 30, TimeUnit.SECONDS) < 0) {
                    throw new IOException("the drainer did not drain ring " + ringFile + " within 30 s: "
                            + async.stats());
                }
                drained = System.nanoTime();
            }
            // read once the drain completed, so that the figures are the whole run's
            stats = async.stats().toString();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while the ring " + ringFile + " drained", e);
        } finally {
            Files.deleteIfExists(ringFile);
            Files.deleteIfExists(ringFile.resolveSibling(ringFile.getFileName() + ".lock"));
        }
        final long[] next = {0};
        final boolean[] inOrder = {true};
        try (SpoolQueue queue = SpoolQueue.open(directory); ExcerptTailer tailer = queue.createTailer()) {
            final ExcerptHandler handler = (bytes, offset, length, index) -> {
                inOrder[0] &= bytes.readLong(offset) == next[0];
                next[0]++;
            };
            while (tailer.read(handler)) {
                // reads until the end
            }
        }
        inOrder[0] &= next[0] == RING_MESSAGES;
        out.printf("ring: %,d appends into %s in %,d ms (%.1f ns/message), drained into the queue by %,d ms after the%n"
                        + "  last append; after the drain: %s%n  every message in the queue once, in order: %b%n",
                RING_MESSAGES, ringFile,
                (appended - start) / 1_000_000, (appended - start) / (double) RING_MESSAGES,
                (drained - appended) / 1_000_000, stats, inOrder[0]);
        return inOrder[0];
    }

    /**
     * Replicates a queue to a second one over loopback TCP; one message in {@link #ACK_SAMPLE} is awaited until the
     * replica acknowledges it, timing append to ack; then both queues are read back and compared.
     */
    private static boolean replicated(final Path primaryDirectory, final Path replicaDirectory, final PrintStream out)
            throws InterruptedException {
        final Histogram ack = new Histogram(TimeUnit.SECONDS.toNanos(10), 3);
        final byte[] message = new byte[MESSAGE_LENGTH];
        final long start = System.nanoTime();
        long lastIndex = -1;
        try (ReplicationSink sink = ReplicationSink.builder(replicaDirectory).sharedSecret(Replicas.SECRET).port(0).start();
             SpoolQueue primary = SpoolQueue.create(primaryDirectory);
             ReplicationSource source = ReplicationSource.builder(primary, sink.address()).sharedSecret(Replicas.SECRET).start();
             ExcerptAppender appender = primary.createAppender();
             CommitWaiter commits = source.commitWaiter(appender)) {
            for (int i = 0; i < REPLICATED; i++) {
                writeLong(message, 0, i);
                final long appendedAt = System.nanoTime();
                lastIndex = appender.append(message);
                if (i % ACK_SAMPLE == 0) {
                    if (!commits.await(lastIndex, CommitStage.ACKED, 10, TimeUnit.SECONDS)) {
                        out.println("replication: no ack for index 0x" + Long.toHexString(lastIndex) + " within 10 s");
                        return false;
                    }
                    ack.recordValue(System.nanoTime() - appendedAt);
                }
            }
            if (!commits.await(lastIndex, CommitStage.ACKED, 10, TimeUnit.SECONDS)) {
                out.println("replication: no ack for the last index 0x" + Long.toHexString(lastIndex) + " within 10 s");
                return false;
            }
        }
        final long done = System.nanoTime();
        final long primarySum = checksum(primaryDirectory);
        final long replicaSum = checksum(replicaDirectory);
        out.printf("replication: %,d messages to a replica over loopback, acknowledged up to index 0x%s in %,d ms;%n"
                        + "  append to the replica's ack of 1 in %d (us): 50%%: %.1f  99%%: %.1f  worst: %.1f%n"
                        + "  replica holds the same excerpts at the same indices: %b%n", REPLICATED,
                Long.toHexString(lastIndex), (done - start) / 1_000_000, ACK_SAMPLE, ack.getValueAtPercentile(50) / 1e3,
                ack.getValueAtPercentile(99) / 1e3, ack.getMaxValue() / 1e3, primarySum == replicaSum);
        return primarySum == replicaSum;
    }

    /** @return the percentiles the live phase prints, in microseconds, on one line. */
    private static String percentiles(final Histogram latency) {
        return String.format(Locale.ROOT, "50%%: %.2f  90%%: %.2f  99%%: %.2f  99.9%%: %.2f  99.99%%: %.2f  worst: %.2f",
                latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(90) / 1e3,
                latency.getValueAtPercentile(99) / 1e3, latency.getValueAtPercentile(99.9) / 1e3,
                latency.getValueAtPercentile(99.99) / 1e3, latency.getMaxValue() / 1e3);
    }

    /** Prints the queue's MBean, read through JMX as a monitoring tool would. */
    private static void printMetrics(final Path directory, final PrintStream out) {
        try {
            final MBeanServer server = ManagementFactory.getPlatformMBeanServer();
            final ObjectName name = new ObjectName("dev.spool:type=Queue,name=" + ObjectName.quote(directory.toString()));
            final StringBuilder line = new StringBuilder("metrics (JMX ").append(name).append("):");
            for (final String attribute : METRICS) {
                line.append(' ').append(attribute).append('=').append(server.getAttribute(name, attribute));
            }
            out.println(line);
        } catch (JMException e) {
            out.println("metrics: cannot read the queue's MBean: " + e);
        }
    }

    /** @return a checksum of every excerpt's index and bytes, in order. */
    private static long checksum(final Path directory) {
        final long[] sum = {0};
        try (SpoolQueue queue = SpoolQueue.open(directory); ExcerptTailer tailer = queue.createTailer()) {
            final ExcerptHandler handler = (bytes, offset, length, index) -> {
                long hash = sum[0] * 31 + index;
                for (int i = 0; i + Long.BYTES <= length; i += Long.BYTES) {
                    hash = hash * 31 + bytes.readLong(offset + i);
                }
                sum[0] = hash * 31 + length;
            };
            while (tailer.read(handler)) {
                // reads until the end
            }
        }
        return sum[0];
    }

    /** @return where the ring goes: the default ring directory ({@code /dev/shm}) if there is one, else the demo's. */
    private static Path ringDirectory(final Path demoDirectory) {
        return Files.isDirectory(AsyncQueueBuilder.DEFAULT_RING_DIRECTORY) ? AsyncQueueBuilder.DEFAULT_RING_DIRECTORY
                : demoDirectory;
    }

    private static void writeLong(final byte[] target, final int at, final long value) {
        for (int i = 0; i < Long.BYTES; i++) {
            target[at + i] = (byte) (value >>> (8 * i));
        }
    }

    private static void delete(final Path directory) {
        if (directory == null) {
            return;
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            System.err.println("could not delete " + directory + ": " + e);
        }
    }
}
