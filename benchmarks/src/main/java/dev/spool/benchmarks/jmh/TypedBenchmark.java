package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.Order;
import dev.spool.benchmarks.support.OrderEvents;
import dev.spool.benchmarks.support.OrderEventsSpoolWriter;
import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.Side;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.format.TypedExcerptDescriptor;
import dev.spool.queue.typed.MethodReader;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.wire.SelfDescribingMarshallable;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Typed messages: one operation writes a 5-field order (id, instrument, side, price, quantity) and reads
 * it back into an order object, on one thread, three ways in the same run:
 * <ul>
 *     <li>{@code typed}: the generated method writer and reader ({@code appender.methodWriter(OrderEvents.class)},
 *     {@code tailer.methodReader(impl).readOne()}), 52 bytes a message;</li>
 *     <li>{@code handWritten}: claim/commit writing the same 52 bytes by hand, and a handler decoding them by hand:
 *     what a team writes without the typed layer;</li>
 *     <li>{@code chronicle}: Chronicle Queue's {@code methodWriter} / {@code methodReader} over a
 *     {@code SelfDescribingMarshallable} order of the same five fields, its usual typed API.</li>
 * </ul>
 * The targets: typed at most 1.2 x hand-written, and at least 2 x faster than Chronicle's. Each iteration writes to
 * a new queue, deleted after it, as {@link SpoolBenchmark}'s appends do. Run with the gc profiler (the launcher's
 * default) to see the bytes per operation: 0 for both Spool paths.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
// Chronicle's methodWriter compiles its writer at run time with javac's internals, which Java 17+ must open to it;
// without this it falls back to a proxy (an Object[] per call). Prepended: the launcher's jvmArgsAppend replaces
// an annotation's append.
@Fork(value = 1, jvmArgsPrepend = {"--add-exports=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED",
        "--add-opens=jdk.compiler/com.sun.tools.javac.file=ALL-UNNAMED"})
public class TypedBenchmark {
    /** JMH instantiates the benchmark. */
    public TypedBenchmark() {
    }

    /**
     * The generated writer and reader.
     *
     * @param state the queue.
     * @return the id read back.
     */
    @Benchmark
    public long typed(final TypedState state) {
        return state.writeAndRead();
    }

    /**
     * Claim/commit of the same bytes, decoded by hand.
     *
     * @param state the queue.
     * @return the id read back.
     */
    @Benchmark
    public long handWritten(final HandState state) {
        return state.writeAndRead();
    }

    /**
     * Control: the generated writer, the hand-written decoding. With {@link #typedRead} it says which half of
     * {@link #typed} costs more than {@link #handWritten}.
     *
     * @param state the queue.
     * @return the id read back.
     */
    @Benchmark
    public long typedWrite(final MixedState state) {
        state.order.id++;
        state.writer.order(state.order);
        return state.readByHand();
    }

    /**
     * Control: the hand-written bytes, the generated reader.
     *
     * @param state the queue.
     * @return the id read back.
     */
    @Benchmark
    public long typedRead(final MixedState state) {
        state.writeByHand();
        state.reader.readOne();
        return state.receiver.id;
    }

    /**
     * Chronicle Queue's method writer and reader.
     *
     * @param state the Chronicle queue.
     * @return the id read back.
     */
    @Benchmark
    public long chronicle(final ChronicleState state) {
        return state.writeAndRead();
    }

    /** A new Spool queue per iteration, with an appender and a tailer that follows it. */
    public abstract static class SpoolState {
        BenchmarkDirectory directory;
        SpoolQueue queue;
        ExcerptAppender appender;
        ExcerptTailer tailer;
        final Order order = new Order().set(0, "EURUSD", Side.BUY, 1.0842, 1_000_000);

        /** Creates an empty queue, its appender and tailer. */
        @Setup(Level.Iteration)
        public void createQueue() {
            directory = BenchmarkDirectory.create("spool-typed-");
            queue = Payloads.spoolQueue(directory.path()).openOrCreate();
            appender = queue.createAppender();
            tailer = queue.createTailer();
            created();
        }

        abstract void created();

        /** Closes and deletes the queue. */
        @TearDown(Level.Iteration)
        public void deleteQueue() {
            tailer.close();
            appender.close();
            queue.close();
            directory.delete();
        }
    }

    /** The typed layer's state. */
    @State(Scope.Thread)
    public static class TypedState extends SpoolState {
        private OrderEvents writer;
        private MethodReader reader;
        private final Receiver receiver = new Receiver();

        /** JMH instantiates the state. */
        public TypedState() {
        }

        @Override
        void created() {
            writer = appender.methodWriter(OrderEvents.class);
            reader = tailer.methodReader(receiver);
        }

        long writeAndRead() {
            final Order order = this.order;
            order.id++;
            writer.order(order);
            reader.readOne();
            return receiver.id;
        }
    }

    /** The fields of the last order read, kept so that the JIT cannot drop the decoding. */
    private static class ReadOrder {
        long id;
        long quantity;
        double price;
        Side side;
        int instrumentLength;

        final void keep(final long id, final long quantity, final double price, final Side side,
                        final CharSequence instrument) {
            this.id = id;
            this.quantity = quantity;
            this.price = price;
            this.side = side;
            this.instrumentLength = instrument.length();
        }
    }

    /** Receives the generated reader's calls. */
    private static final class Receiver extends ReadOrder implements OrderEvents {
        @Override
        public void order(final Order order) {
            keep(order.id, order.quantity, order.price, order.side, order.instrument);
        }
    }

    /** Claim/commit and a decoding handler written by hand, for exactly the typed layer's 52 bytes. */
    @State(Scope.Thread)
    public static class HandState extends SpoolState implements ExcerptHandler {
        private static final int LENGTH = 52;
        private static final Side[] SIDES = Side.values();
        private final Order read = new Order();

        /** JMH instantiates the state. */
        public HandState() {
        }

        @Override
        void created() {
            // checks, once per iteration, that the generated reader reads these bytes as the order written
            final Receiver check = new Receiver();
            try (ExcerptTailer checker = queue.createTailer()) {
                final MethodReader reader = checker.methodReader(check);
                writeAndRead();
                if (!reader.readOne() || check.id != order.id || check.quantity != order.quantity
                        || check.price != order.price || check.side != order.side || check.instrumentLength != 6) {
                    throw new IllegalStateException("the hand-written bytes are not the typed layer's");
                }
            }
        }

        long writeAndRead() {
            writeByHand();
            return readByHand();
        }

        final void writeByHand() {
            final Order order = this.order;
            order.id++;
            final ExcerptAppender appender = this.appender;
            final long offset = appender.claim(LENGTH);
            final BytesStore<?, ?> bytes = appender.claimedBytes();
            bytes.writeShort(offset, (short) TypedExcerptDescriptor.MAGIC);
            bytes.writeShort(offset + 2, (short) OrderEventsSpoolWriter.EVENTS_ID);
            bytes.writeShort(offset + 4, (short) 1);
            bytes.writeByte(offset + 6, TypedExcerptDescriptor.TAG_MESSAGE);
            bytes.writeInt(offset + 7, LENGTH - 11);
            bytes.writeByte(offset + 11, TypedExcerptDescriptor.TAG_LONG);
            bytes.writeLong(offset + 12, order.id);
            bytes.writeByte(offset + 20, TypedExcerptDescriptor.TAG_FIXED_STRING);
            bytes.writeShort(offset + 21, (short) 8);
            final StringBuilder instrument = order.instrument;
            final int chars = instrument.length();
            for (int i = 0; i < 8; i++) {
                bytes.writeByte(offset + 23 + i, i < chars ? (byte) instrument.charAt(i) : 0);
            }
            bytes.writeByte(offset + 31, TypedExcerptDescriptor.TAG_ENUM);
            bytes.writeShort(offset + 32, (short) order.side.ordinal());
            bytes.writeByte(offset + 34, TypedExcerptDescriptor.TAG_DOUBLE);
            bytes.writeDouble(offset + 35, order.price);
            bytes.writeByte(offset + 43, TypedExcerptDescriptor.TAG_LONG);
            bytes.writeLong(offset + 44, order.quantity);
            appender.commit(LENGTH);
        }

        final long readByHand() {
            tailer.read(this);
            return read.id;
        }

        @Override
        public void onExcerpt(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
            final Order read = this.read;
            read.id = bytes.readLong(offset + 12);
            final StringBuilder instrument = read.instrument;
            instrument.setLength(0);
            for (int i = 0; i < 8; i++) {
                final int c = bytes.readUnsignedByte(offset + 23 + i);
                if (c == 0) {
                    break;
                }
                instrument.append((char) c);
            }
            read.side = SIDES[bytes.readUnsignedShort(offset + 32)];
            read.price = bytes.readDouble(offset + 35);
            read.quantity = bytes.readLong(offset + 44);
        }
    }

    /** Both: the generated writer and reader, and the hand-written ones, for the controls. */
    @State(Scope.Thread)
    public static class MixedState extends HandState {
        private OrderEvents writer;
        private MethodReader reader;
        private final Receiver receiver = new Receiver();

        /** JMH instantiates the state. */
        public MixedState() {
        }

        @Override
        void created() {
            super.created();
            writer = appender.methodWriter(OrderEvents.class);
            reader = tailer.methodReader(receiver);
        }
    }

    /** Chronicle Queue's typed API over the same order. */
    @State(Scope.Thread)
    public static class ChronicleState {
        private BenchmarkDirectory directory;
        private ChronicleQueue queue;
        private net.openhft.chronicle.queue.ExcerptAppender appender;
        private net.openhft.chronicle.queue.ExcerptTailer tailer;
        private ChronicleOrders writer;
        private net.openhft.chronicle.bytes.MethodReader reader;
        private final ChronicleOrder order = new ChronicleOrder();
        private final ChronicleReceiver receiver = new ChronicleReceiver();

        /** JMH instantiates the state. */
        public ChronicleState() {
        }

        /** Creates an empty queue, its method writer and reader. */
        @Setup(Level.Iteration)
        public void createQueue() {
            directory = BenchmarkDirectory.create("chronicle-typed-");
            queue = Payloads.chronicleQueue(directory.path()).build();
            appender = queue.createAppender();
            tailer = queue.createTailer();
            writer = appender.methodWriter(ChronicleOrders.class);
            reader = tailer.methodReader(receiver);
            order.instrument = "EURUSD";
            order.side = Side.BUY;
            order.price = 1.0842;
            order.quantity = 1_000_000;
        }

        /** Closes and deletes the queue. */
        @TearDown(Level.Iteration)
        public void deleteQueue() {
            tailer.close();
            appender.close();
            queue.close();
            directory.delete();
        }

        long writeAndRead() {
            final ChronicleOrder order = this.order;
            order.id++;
            writer.order(order);
            reader.readOne();
            return receiver.id;
        }
    }

    /** Chronicle's events interface: the same one method. */
    public interface ChronicleOrders {
        /** @param order the order. */
        void order(ChronicleOrder order);
    }

    /** The same five fields as a Chronicle Wire marshallable, the way Chronicle's users declare a message. */
    public static final class ChronicleOrder extends SelfDescribingMarshallable {
        long id;
        String instrument;
        Side side;
        double price;
        long quantity;

        /** Chronicle's reader creates one instance and reuses it. */
        public ChronicleOrder() {
        }
    }

    /** Receives Chronicle's method reader's calls. */
    private static final class ChronicleReceiver extends ReadOrder implements ChronicleOrders {
        @Override
        public void order(final ChronicleOrder order) {
            keep(order.id, order.quantity, order.price, order.side, order.instrument);
        }
    }
}
