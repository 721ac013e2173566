package example.typed;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.typed.MethodReader;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Writes three orders and a cancel through the generated method writer of {@link OrderEvents}, then reads them back
 * through the generated method reader into a handler that implements the same interface. Fails, saying what
 * differs, unless it reads exactly what it wrote; prints "OK" otherwise.
 */
public final class TypedOrders {
    private TypedOrders() {
    }

    /**
     * Runs the recipe.
     *
     * @param args the directory to create the queue in (a new one inside it for every run); a temporary directory
     *             if none is given.
     * @throws Exception if the queue cannot be written or read.
     */
    public static void main(final String[] args) throws Exception {
        final Path parent = args.length > 0 ? Files.createDirectories(Path.of(args[0])) : null;
        final Path directory = parent == null ? Files.createTempDirectory("orders-")
                : Files.createTempDirectory(parent, "orders-");
        final List<String> written = new ArrayList<>();
        final List<String> read = new ArrayList<>();
        try (SpoolQueue queue = SpoolQueue.builder(directory).create();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            // The writer is generated at build time: each call is one excerpt, encoded in place through claim and
            // commit. One NewOrder instance serves every call, so the writing loop allocates nothing.
            final OrderEvents orders = appender.methodWriter(OrderEvents.class);
            final NewOrder order = new NewOrder();
            orders.newOrder(order.set(1, "ACME", Side.BUY, 101.25, 100));
            written.add(describe(order));
            orders.newOrder(order.set(2, "INIT", Side.SELL, 7.5, 2_000));
            written.add(describe(order));
            orders.cancel(1, "client request");
            written.add("cancel 1: client request");
            orders.newOrder(order.set(3, "ACME", Side.SELL, 101.5, 40));
            written.add(describe(order));

            // The reader calls the handler's method for each excerpt, with the arguments decoded.
            final MethodReader reader = tailer.methodReader(new OrderEvents() {
                @Override
                public void newOrder(final NewOrder received) {
                    // the reader reuses one NewOrder for every call: keep a copy, not the instance
                    read.add(describe(received));
                }

                @Override
                public void cancel(final long orderId, final CharSequence reason) {
                    read.add("cancel " + orderId + ": " + reason);
                }
            });
            while (reader.readOne()) {
                // each readOne() delivers one excerpt; false once the tailer has read everything
            }
            read.forEach(call -> System.out.println("read " + call));
            if (!read.equals(written)) {
                throw new IllegalStateException("read back " + read + ", but wrote " + written);
            }
            if (reader.unknownMethods() != 0) {
                throw new IllegalStateException(reader.unknownMethods() + " excerpts of unknown methods");
            }
        }
        System.out.println("OK: " + written.size() + " typed calls written and read back in " + directory);
    }

    private static String describe(final NewOrder order) {
        return "newOrder " + order.id + ": " + order.side + " " + order.quantity + " " + order.instrument + " @ "
                + order.price;
    }
}
