package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.Order;
import dev.spool.benchmarks.support.OrderEvents;
import dev.spool.benchmarks.support.Payloads;
import dev.spool.benchmarks.support.Side;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.typed.MethodReader;

import java.nio.file.Path;

/**
 * The plain queue through the typed layer: JLBH's thread calls the generated writer's {@code order(Order)} with the
 * start time as the order id; the reader spins on the generated reader's {@code readOne()}, which decodes the five
 * fields into its reused order and calls back. Every message is the 52-byte typed order, whatever the experiment's
 * length: the variant measures the typed layer's encode and decode on top of {@code spool}.
 */
final class TypedVariant implements LatencyVariant {
    /** The variant's name. */
    static final String NAME = "spool-typed";

    private final Order order = new Order().set(0, "EURUSD", Side.BUY, 1.0842, 1_000_000);
    private final Receiver receiver = new Receiver();
    private SpoolQueue queue;
    private ExcerptAppender appender;
    private OrderEvents writer;
    private ExcerptTailer tailer;
    private MethodReader reader;

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public String description() {
        return "plain Spool queue through the typed layer: a generated writer's order(Order) of 5 fields (52 bytes,"
                + " whatever the length) / the generated reader's readOne()";
    }

    @Override
    public void init(final Path directory, final int length) {
        queue = Payloads.spoolQueue(directory).openOrCreate();
        appender = queue.createAppender();
        writer = appender.methodWriter(OrderEvents.class);
    }

    @Override
    public void openReader() {
        tailer = queue.createTailer();
        reader = tailer.methodReader(receiver);
    }

    @Override
    public void send(final long startTimeNs) {
        order.id = startTimeNs;
        writer.order(order);
    }

    @Override
    public long receive() {
        return reader.readOne() ? receiver.startTimeNs : NOTHING;
    }

    @Override
    public void closeReader() {
        tailer.close();
    }

    @Override
    public void close() {
        appender.close();
        queue.close();
    }

    /** Takes the start time from the order id, and reads the other fields so that their decoding counts. */
    private static final class Receiver implements OrderEvents {
        long startTimeNs;
        long checksum;

        @Override
        public void order(final Order order) {
            startTimeNs = order.id;
            checksum += order.quantity + order.side.ordinal() + order.instrument.length() + (long) order.price;
        }
    }
}
