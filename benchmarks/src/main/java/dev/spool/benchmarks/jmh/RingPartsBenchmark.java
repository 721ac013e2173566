package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.RingPaths;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.ringbuffer.AsyncAppender;
import dev.spool.ringbuffer.AsyncQueue;
import dev.spool.ringbuffer.AsyncTailer;
import dev.spool.ringbuffer.BackPressure;
import dev.spool.ringbuffer.Drainer;
import dev.spool.ringbuffer.RingBuffer;
import dev.spool.ringbuffer.RingHandler;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.agrona.concurrent.SystemEpochClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Group;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Control;

import java.lang.invoke.VarHandle;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Where a ring record's time goes, next to the plain queue's, on the path docs/operations/ring-buffer.md documents (an async
 * queue with its ring on tmpfs, an {@link AsyncTailer} reading, the queue on the benchmark directory's disk, 32-byte
 * payloads). Most figures take one thread, so that they are the instructions' cost and not the machine's scheduling.
 * <p>
 * The round trips compare like with like: {@link #ringRoundTrip} appends into the ring and reads the record back
 * with an async tailer, {@link #plainRoundTrip} appends to the queue and reads the excerpt back with a tailer.
 * Their halves ({@code *Append}, {@code *ReadEmpty}) split them, and the {@code part*} controls isolate one
 * candidate each: the claim's stamp ({@link #partClock} against {@link #partCachedClock}), the claim's
 * compare-and-swaps ({@link #partClaimThreeCas} against {@link #partClaimOneCas}), the ring's own claim/commit
 * ({@link #partRingClaimCommit}), and the checked copy of a ring record ({@link #partCheckedCopy}). A cost that
 * only shows between two cores (a cache line that producer and reader both touch) does not show in those; the
 * ping-pong groups ({@code ringPingPong}, {@code plainPingPong}) hand a message to another thread and back, two
 * threads on two cores, and show it.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class RingPartsBenchmark {
    /** The payload length of the documented path. */
    static final int PAYLOAD_LENGTH = 32;
    /** The capacity of each ping-pong ring: it holds an iteration's records, drained only between iterations. */
    static final int PING_PONG_RING_CAPACITY = 1 << 30;
    /** The bare ring's capacity. */
    static final int RING_CAPACITY = 1 << 20;
    /**
     * Round trips and appends per invocation: before each invocation, outside the measurement, the ring is drained
     * into the queue, as the documented path's drainer does on its own thread; less than the default ring holds.
     */
    static final int BATCH = 1024;

    /** JMH instantiates the benchmark. */
    public RingPartsBenchmark() {
    }

    /**
     * {@link AsyncAppender#append(BytesStore, long, int)} of 32 bytes, then {@link AsyncTailer#read} of it from the
     * ring, {@value #BATCH} times an invocation; the drainer runs between invocations, not measured, as it runs on
     * a thread of its own on the documented path.
     *
     * @param state the async queue, its appender and tailer.
     * @return the last record's index.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long ringRoundTrip(final RingTrip state) {
        long index = 0;
        for (int i = 0; i < BATCH; i++) {
            state.append();
            index = state.read();
        }
        return index;
    }

    /**
     * {@link ExcerptAppender#append(BytesStore, long, int)} of 32 bytes to the queue, then {@link ExcerptTailer#read}
     * of it.
     *
     * @param state the queue, its appender and tailer.
     * @return the excerpt's index.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long plainRoundTrip(final PlainTrip state) {
        long index = 0;
        for (int i = 0; i < BATCH; i++) {
            state.append();
            index = state.read();
        }
        return index;
    }

    /**
     * The appending half of {@link #ringRoundTrip}, with an async tailer of this process that does not read: its
     * doorbell is in the set each commit rings; {@value #BATCH} an invocation, the ring drained between.
     *
     * @param state the async queue.
     * @return the last record's ring position.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long ringAppend(final RingTrip state) {
        long position = 0;
        for (int i = 0; i < BATCH; i++) {
            position = state.append();
        }
        return position;
    }

    /**
     * The appending half of {@link #plainRoundTrip}, {@value #BATCH} an invocation.
     *
     * @param state the queue.
     * @return the last excerpt's index.
     */
    @Benchmark
    @OperationsPerInvocation(BATCH)
    public long plainAppend(final PlainTrip state) {
        long index = 0;
        for (int i = 0; i < BATCH; i++) {
            index = state.append();
        }
        return index;
    }

    /**
     * {@link AsyncTailer#read} of a tailer that has read everything, in the ring: what a spinning reader pays per
     * poll, and the shared lines it loads each time (the ring's tail, the release limit, the next header word).
     *
     * @param state an async tailer at the end of the ring.
     * @return false.
     */
    @Benchmark
    public boolean ringReadEmpty(final RingAtEnd state) {
        return state.poll();
    }

    /**
     * {@link ExcerptTailer#read} of a tailer that has read everything: a spinning reader's poll of the plain queue,
     * which loads the next excerpt's header word.
     *
     * @param state a tailer at the end of the queue.
     * @return false.
     */
    @Benchmark
    public boolean plainReadEmpty(final PlainAtEnd state) {
        return state.poll();
    }

    /**
     * The claim's stamp as the ring takes it: the queue's epoch clock, the system's wall clock by default.
     *
     * @return the time in milliseconds.
     */
    @Benchmark
    public long partClock() {
        return SystemEpochClock.INSTANCE.time();
    }

    /**
     * A volatile load of a field another thread keeps current: what a cached or coarse clock costs the claim.
     *
     * @param state holds the field.
     * @return its value.
     */
    @Benchmark
    public long partCachedClock(final Words state) {
        return state.cachedTime;
    }

    /**
     * The ring's claim protocol without the ring: a compare-and-swap of a tail word, a compare-and-swap of a header
     * word to "in progress", a load and a compare-and-swap of it to "committed", on memory this thread owns.
     *
     * @param state the words.
     * @return the new tail.
     */
    @Benchmark
    public long partClaimThreeCas(final Words state) {
        return state.claimThreeCas();
    }

    /**
     * Agrona's many-to-one protocol for the same record: a compare-and-swap of the tail word, release stores of the
     * header word, in progress and then committed.
     *
     * @param state the words.
     * @return the new tail.
     */
    @Benchmark
    public long partClaimOneCas(final Words state) {
        return state.claimOneCas();
    }

    /**
     * {@link RingBuffer#tryClaim(int)}, a copy of 32 bytes at {@link RingBuffer#payloadOffset(long)} and
     * {@link RingBuffer#commit(long)} on a bare ring (no async queue, no stamp from a queue's clock), read empty by
     * this thread when full.
     *
     * @param state the ring.
     * @return the record's position.
     */
    @Benchmark
    public long partRingClaimCommit(final BareRing state) {
        return state.claimCommit();
    }

    /**
     * The ring reader's checked copy of a record without the ring: loads of a header word and a time, a 32-byte copy
     * from native memory into the reader's buffer, an acquire fence, then the volatile load of a limit that says
     * whether the copy may be trusted.
     *
     * @param state the words.
     * @return the limit.
     */
    @Benchmark
    public long partCheckedCopy(final Words state) {
        return state.checkedCopy();
    }

    /**
     * Between two threads, the path E1 measures: this thread appends a ping into one async queue's ring and spins
     * on an async tailer of a second async queue until {@link #ringPong} has read the ping and appended the pong
     * there. One operation is two hand-overs between cores: the cache lines producer and reader share show here, not
     * in the one-thread figures. The rings ({@value #PING_PONG_RING_CAPACITY} bytes) are drained between iterations,
     * not by drainer threads, which on a machine of two cores would take the cores of the spinning threads.
     *
     * @param state the two async queues.
     * @param control tells a spinning thread that the iteration is over.
     * @return the pong's index.
     */
    @Benchmark
    @Group("ringPingPong")
    public long ringPing(final RingPingPong state, final Control control) {
        return state.ping(control);
    }

    /**
     * The other thread of {@link #ringPing}: reads the ping from the first ring, appends the pong into the second.
     *
     * @param state the two async queues.
     * @param control tells a spinning thread that the iteration is over.
     * @return the ping's index.
     */
    @Benchmark
    @Group("ringPingPong")
    public long ringPong(final RingPingPong state, final Control control) {
        return state.pong(control);
    }

    /**
     * {@link #ringPing} on two plain queues: append to one, spin on a tailer of the other.
     *
     * @param state the two queues.
     * @param control tells a spinning thread that the iteration is over.
     * @return the pong's index.
     */
    @Benchmark
    @Group("plainPingPong")
    public long plainPing(final PlainPingPong state, final Control control) {
        return state.ping(control);
    }

    /**
     * The other thread of {@link #plainPing}.
     *
     * @param state the two queues.
     * @param control tells a spinning thread that the iteration is over.
     * @return the ping's index.
     */
    @Benchmark
    @Group("plainPingPong")
    public long plainPong(final PlainPingPong state, final Control control) {
        return state.pong(control);
    }

    /** Keeps the first eight bytes of what it is handed, and its index, in fields: a read allocates nothing. */
    static final class FirstLong implements ExcerptHandler {
        private long value;
        private long index = -1;

        @Override
        public void onExcerpt(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
            this.value = bytes.readLong(offset);
            this.index = index;
        }

        long index() {
            return index;
        }

        long value() {
            return value;
        }
    }

    /**
     * An async queue in front of a queue in a new directory, its ring on tmpfs with the builder's default capacity,
     * one appender and one async tailer.
     */
    @State(Scope.Thread)
    public static class RingQueue {
        private final FirstLong handler = new FirstLong();
        private BenchmarkDirectory directory;
        private Path ringPath;
        private AsyncQueue async;
        private AsyncAppender appender;
        private AsyncTailer tailer;
        private Drainer drainer;
        private Bytes<?> message;

        /** JMH instantiates the state. */
        public RingQueue() {
        }

        /** Creates the queue, its ring, the drainer this thread runs, and the tailer. */
        @Setup(Level.Trial)
        public void open() {
            directory = BenchmarkDirectory.create("spool-ring-parts-");
            ringPath = RingPaths.create(directory.path());
            async = AsyncQueue.builder(Payloads.spoolQueue(directory.path().resolve("queue")))
                    .ringPath(ringPath)
                    .backPressure(BackPressure.returnCode())
                    .build();
            appender = async.createAppender();
            drainer = async.createDrainer();
            tailer = async.createTailer();
            message = Payloads.directMessage(PAYLOAD_LENGTH);
        }

        long append() {
            final long position = appender.append(message.bytesStore(), 0, PAYLOAD_LENGTH);
            if (position < 0) {
                throw new IllegalStateException("ring " + ringPath + " is full: it holds less than a batch");
            }
            return position;
        }

        /** Drains the ring into the queue. */
        void drain() {
            while (drainer.doWork() > 0) {
                // to the ring's tail
            }
        }

        boolean poll() {
            return tailer.read(handler);
        }

        long read() {
            if (!tailer.read(handler)) {
                throw new IllegalStateException("the async tailer of " + ringPath + " found nothing after an append");
            }
            return handler.index();
        }

        /** @return the async tailer, for a test. */
        AsyncTailer tailer() {
            return tailer;
        }

        /** @return the first eight bytes of the last record read, for a test. */
        long lastValue() {
            return handler.value();
        }

        /** Closes and deletes the queue and the ring. */
        @TearDown(Level.Trial)
        public void close() {
            tailer.close();
            appender.close();
            drainer.close();
            async.close();
            message.releaseLast();
            RingPaths.delete(ringPath);
            directory.delete();
        }
    }

    /** {@link RingQueue}, drained before each invocation, outside the measurement. */
    @State(Scope.Thread)
    public static class RingTrip extends RingQueue {
        /** JMH instantiates the state. */
        public RingTrip() {
        }

        /** Drains what the last invocation appended. */
        @Setup(Level.Invocation)
        public void drainBetween() {
            drain();
        }
    }

    /** A queue in a new directory, one appender and one tailer, the settings of {@link RingQueue}'s queue. */
    @State(Scope.Thread)
    public static class PlainTrip {
        private final FirstLong handler = new FirstLong();
        private BenchmarkDirectory directory;
        private SpoolQueue queue;
        private ExcerptAppender appender;
        private ExcerptTailer tailer;
        private Bytes<?> message;

        /** JMH instantiates the state. */
        public PlainTrip() {
        }

        /** Creates the queue, its appender and tailer. */
        @Setup(Level.Trial)
        public void open() {
            directory = BenchmarkDirectory.create("spool-plain-parts-");
            queue = Payloads.spoolQueue(directory.path().resolve("queue")).openOrCreate();
            appender = queue.createAppender();
            tailer = queue.createTailer();
            message = Payloads.directMessage(PAYLOAD_LENGTH);
        }

        long append() {
            return appender.append(message.bytesStore(), 0, PAYLOAD_LENGTH);
        }

        boolean poll() {
            return tailer.read(handler);
        }

        long read() {
            if (!tailer.read(handler)) {
                throw new IllegalStateException("the tailer of " + queue.directory() + " found nothing after an append");
            }
            return handler.index();
        }

        /** Closes and deletes the queue. */
        @TearDown(Level.Trial)
        public void close() {
            tailer.close();
            appender.close();
            queue.close();
            message.releaseLast();
            directory.delete();
        }
    }

    /** An async tailer that has read the one record appended, so that it is in the ring at its end. */
    @State(Scope.Thread)
    public static class RingAtEnd extends RingQueue {
        /** JMH instantiates the state. */
        public RingAtEnd() {
        }

        /** Opens the async queue as {@link RingQueue} does, then appends one record and reads it. */
        @Override
        @Setup(Level.Trial)
        public void open() {
            super.open();
            append();
            read();
            if (!tailer().isReadingRing()) {
                throw new IllegalStateException("the async tailer does not read the ring");
            }
        }
    }

    /** A tailer that has read the one excerpt appended. */
    @State(Scope.Thread)
    public static class PlainAtEnd extends PlainTrip {
        /** JMH instantiates the state. */
        public PlainAtEnd() {
        }

        /** Opens the queue as {@link PlainTrip} does, then appends one excerpt and reads it. */
        @Override
        @Setup(Level.Trial)
        public void open() {
            super.open();
            append();
            read();
        }
    }

    /** Two async queues drained between iterations, an appender and an async tailer of each for each side. */
    @State(Scope.Group)
    public static class RingPingPong {
        private final FirstLong pingRead = new FirstLong();
        private final FirstLong pongRead = new FirstLong();
        private BenchmarkDirectory directory;
        private Path pingRing;
        private Path pongRing;
        private AsyncQueue pings;
        private AsyncQueue pongs;
        private AsyncAppender pingAppender;
        private AsyncAppender pongAppender;
        private AsyncTailer pingTailer;
        private AsyncTailer pongTailer;
        private Drainer pingDrainer;
        private Drainer pongDrainer;
        private Bytes<?> message;

        /** JMH instantiates the state. */
        public RingPingPong() {
        }

        /** Creates both async queues and their drainers, run between iterations. */
        @Setup(Level.Trial)
        public void open() {
            directory = BenchmarkDirectory.create("spool-ring-pingpong-");
            pingRing = RingPaths.create(directory.path());
            pongRing = RingPaths.create(directory.path());
            pings = open(directory.path().resolve("pings"), pingRing);
            pongs = open(directory.path().resolve("pongs"), pongRing);
            pingDrainer = pings.createDrainer();
            pongDrainer = pongs.createDrainer();
            pingAppender = pings.createAppender();
            pongAppender = pongs.createAppender();
            pingTailer = pings.createTailer();
            pongTailer = pongs.createTailer();
            message = Payloads.directMessage(PAYLOAD_LENGTH);
        }

        private static AsyncQueue open(final Path queue, final Path ring) {
            return AsyncQueue.builder(Payloads.spoolQueue(queue)).ringPath(ring).ringCapacity(PING_PONG_RING_CAPACITY)
                    .backPressure(BackPressure.returnCode()).build();
        }

        /** Drains both rings while neither thread runs. */
        @Setup(Level.Iteration)
        public void drain() {
            while (pingDrainer.doWork() > 0 || pongDrainer.doWork() > 0) {
                // to both tails
            }
        }

        long ping(final Control control) {
            send(pingAppender);
            while (!pongTailer.read(pongRead)) {
                if (control.stopMeasurement) {
                    return -1;
                }
            }
            return pongRead.index();
        }

        long pong(final Control control) {
            while (!pingTailer.read(pingRead)) {
                if (control.stopMeasurement) {
                    return -1;
                }
            }
            send(pongAppender);
            return pingRead.index();
        }

        private void send(final AsyncAppender appender) {
            if (appender.append(message.bytesStore(), 0, PAYLOAD_LENGTH) < 0) {
                throw new IllegalStateException("a ping-pong ring is full: its capacity holds one iteration of up to"
                        + " a second or so");
            }
        }

        /** Closes both async queues and deletes them. */
        @TearDown(Level.Trial)
        public void close() {
            pingDrainer.close();
            pongDrainer.close();
            pingTailer.close();
            pongTailer.close();
            pingAppender.close();
            pongAppender.close();
            pings.close();
            pongs.close();
            message.releaseLast();
            RingPaths.delete(pingRing);
            RingPaths.delete(pongRing);
            directory.delete();
        }
    }

    /** Two queues, an appender and a tailer of each for each side. */
    @State(Scope.Group)
    public static class PlainPingPong {
        private final FirstLong pingRead = new FirstLong();
        private final FirstLong pongRead = new FirstLong();
        private BenchmarkDirectory directory;
        private SpoolQueue pings;
        private SpoolQueue pongs;
        private ExcerptAppender pingAppender;
        private ExcerptAppender pongAppender;
        private ExcerptTailer pingTailer;
        private ExcerptTailer pongTailer;
        private Bytes<?> message;

        /** JMH instantiates the state. */
        public PlainPingPong() {
        }

        /** Creates both queues. */
        @Setup(Level.Trial)
        public void open() {
            directory = BenchmarkDirectory.create("spool-plain-pingpong-");
            pings = Payloads.spoolQueue(directory.path().resolve("pings")).openOrCreate();
            pongs = Payloads.spoolQueue(directory.path().resolve("pongs")).openOrCreate();
            pingAppender = pings.createAppender();
            pongAppender = pongs.createAppender();
            pingTailer = pings.createTailer();
            pongTailer = pongs.createTailer();
            message = Payloads.directMessage(PAYLOAD_LENGTH);
        }

        long ping(final Control control) {
            pingAppender.append(message.bytesStore(), 0, PAYLOAD_LENGTH);
            while (!pongTailer.read(pongRead)) {
                if (control.stopMeasurement) {
                    return -1;
                }
            }
            return pongRead.index();
        }

        long pong(final Control control) {
            while (!pingTailer.read(pingRead)) {
                if (control.stopMeasurement) {
                    return -1;
                }
            }
            pongAppender.append(message.bytesStore(), 0, PAYLOAD_LENGTH);
            return pingRead.index();
        }

        /** Closes and deletes both queues. */
        @TearDown(Level.Trial)
        public void close() {
            pingTailer.close();
            pongTailer.close();
            pingAppender.close();
            pongAppender.close();
            pings.close();
            pongs.close();
            message.releaseLast();
            directory.delete();
        }
    }

    /** A bare ring of the default capacity on tmpfs. */
    @State(Scope.Thread)
    public static class BareRing {
        private static final RingHandler SKIP = (buffer, offset, length, position) -> { };
        private Path ringPath;
        private RingBuffer ring;
        private Bytes<?> message;

        /** JMH instantiates the state. */
        public BareRing() {
        }

        /** Creates the ring. */
        @Setup(Level.Trial)
        public void open() {
            ringPath = RingPaths.create(BenchmarkDirectory.base());
            ring = RingBuffer.open(ringPath, RING_CAPACITY);
            message = Payloads.directMessage(PAYLOAD_LENGTH);
        }

        long claimCommit() {
            final RingBuffer ring = this.ring;
            long position = ring.tryClaim(PAYLOAD_LENGTH);
            if (position < 0) {
                ring.read(SKIP, Integer.MAX_VALUE);
                position = ring.tryClaim(PAYLOAD_LENGTH);
            }
            MEMORY.copyMemory(message.addressForRead(0), ring.buffer().addressForWrite(ring.payloadOffset(position)),
                    (long) PAYLOAD_LENGTH);
            ring.commit(position);
            return position;
        }

        /** Closes and deletes the ring. */
        @TearDown(Level.Trial)
        public void close() {
            ring.close();
            message.releaseLast();
            RingPaths.delete(ringPath);
        }
    }

    /** Native words this thread owns, laid out as a ring record and its header's tail, and a clock field. */
    @State(Scope.Thread)
    public static class Words {
        private static final int RECORD_LENGTH = 16 + PAYLOAD_LENGTH;
        /** A field as a ticker thread would keep it. */
        volatile long cachedTime = System.currentTimeMillis();
        private BytesStore<?, Void> memory;
        private long tailAddress;
        private long recordAddress;
        private long copyAddress;
        private long limitAddress;

        /** JMH instantiates the state. */
        public Words() {
        }

        /** Allocates the words, each on a line of its own. */
        @Setup(Level.Trial)
        public void allocate() {
            memory = BytesStore.nativeStoreWithFixedCapacity(1024);
            final long base = (memory.addressForWrite(0) + 127) & -128L;
            tailAddress = base;
            limitAddress = base + 128;
            recordAddress = base + 256;
            copyAddress = base + 512;
            MEMORY.writeLong(tailAddress, 0);
            MEMORY.writeLong(limitAddress, 0);
            MEMORY.writeLong(recordAddress, 0);
        }

        long claimThreeCas() {
            final long tail = MEMORY.readVolatileLong(tailAddress);
            MEMORY.compareAndSwapLong(tailAddress, tail, tail + RECORD_LENGTH);
            MEMORY.compareAndSwapLong(recordAddress, 0, -RECORD_LENGTH);
            final long claimed = MEMORY.readVolatileLong(recordAddress);
            MEMORY.compareAndSwapLong(recordAddress, claimed, RECORD_LENGTH);
            // the next claim finds the word unclaimed again, as the ring's next record would
            MEMORY.writeLong(recordAddress, 0);
            return tail;
        }

        long claimOneCas() {
            final long tail = MEMORY.readVolatileLong(tailAddress);
            MEMORY.compareAndSwapLong(tailAddress, tail, tail + RECORD_LENGTH);
            MEMORY.writeOrderedLong(recordAddress, -RECORD_LENGTH);
            MEMORY.writeOrderedLong(recordAddress, RECORD_LENGTH);
            MEMORY.writeLong(recordAddress, 0);
            return tail;
        }

        long checkedCopy() {
            final long word = MEMORY.readVolatileLong(recordAddress);
            final long time = MEMORY.readLong(recordAddress + 8);
            MEMORY.copyMemory(recordAddress + 16, copyAddress, (long) PAYLOAD_LENGTH);
            VarHandle.acquireFence();
            return MEMORY.readVolatileLong(limitAddress) + word + time;
        }

        /** Frees the words. */
        @TearDown(Level.Trial)
        public void free() {
            memory.releaseLast();
        }
    }
}
