package example.ring;

import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import dev.spool.ringbuffer.AsyncAppender;
import dev.spool.ringbuffer.AsyncQueue;
import dev.spool.ringbuffer.AsyncTailer;
import net.openhft.chronicle.bytes.BytesStore;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A producer thread appends orders into the ring of an {@link AsyncQueue} with zero-copy claim and commit; the main
 * thread reads them with an {@link AsyncTailer} meanwhile, from the queue and, ahead of the drainer, from the ring.
 * Then it closes the async queue, which drains what is left, and reopens the queue to check that every order is
 * in it once, in order, at the index the tailer saw. Fails, saying what differs, otherwise; prints "OK".
 */
public final class RingOrders {
    /** How many orders: enough to lap the ring several times, few enough to take well under a second. */
    private static final int ORDERS = 200_000;
    /** An order's payload: its sequence number and a price, two little-endian longs. */
    private static final int ORDER_LENGTH = 2 * Long.BYTES;

    private RingOrders() {
    }

    /**
     * Runs the recipe.
     *
     * @param args the directory to create the queue in (a new one inside it for every run); a temporary directory
     *             if none is given.
     * @throws Exception if the queue or the ring cannot be written or read.
     */
    public static void main(final String[] args) throws Exception {
        final Path parent = args.length > 0 ? Files.createDirectories(Path.of(args[0])) : null;
        final Path directory = parent == null ? Files.createTempDirectory("ring-orders-")
                : Files.createTempDirectory(parent, "ring-orders-");
        // The ring belongs on tmpfs: on a disk file system the kernel writes its pages back like any mapped file's,
        // and the producers would meet the stalls the ring is there to hide. Every process of the queue uses this
        // same path.
        final Path shm = Path.of("/dev/shm");
        final Path ringDirectory = Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        final Path ring = ringDirectory.resolve(directory.getFileName() + ".ring");

        final long lastIndexRead;
        final long lastIndexDrained;
        final long ringReads;
        try (AsyncQueue async = AsyncQueue.builder(directory)
                .ringPath(ring)
                .ringCapacity(1 << 20)
                .build()) {
            // The drainer copies the ring into the queue on a thread of its own, chosen for the machine's cores.
            async.startDrainer();
            final AsyncTailer tailer = async.createTailer();
            final Producer producer = new Producer(async.createAppender());
            final Thread producing = new Thread(producer, "producer");
            producing.start();

            final OrderCheck check = new OrderCheck();
            while (check.received < ORDERS) {
                // await sleeps until a record is committed, so the reader spins only while orders flow
                if (!tailer.read(check) && !tailer.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("no order for 10 s after " + check.received + " of " + ORDERS,
                            producer.failure.get());
                }
            }
            producing.join();
            if (producer.failure.get() != null) {
                throw new IllegalStateException("the producer failed", producer.failure.get());
            }
            lastIndexRead = check.lastIndex;
            ringReads = tailer.ringReads();
            // the index the drainer gave the last order: the one the tailer read it with, before it was drained
            lastIndexDrained = producer.lastIndex.get();
            if (lastIndexDrained != lastIndexRead) {
                throw new IllegalStateException("the last order was read at index 0x" + Long.toHexString(lastIndexRead)
                        + " but drained at 0x" + Long.toHexString(lastIndexDrained));
            }
            // close: closes the appender and tailer, drains what is left, stops the drainer and closes the queue;
            // with a deadline it returns the records it could not drain (0 here: the producer has finished)
            final long left = async.close(Duration.ofSeconds(10));
            if (left != 0) {
                throw new IllegalStateException(left + " records left in ring " + ring + " after close");
            }
        }
        // Drained and closed, and no other process uses the ring: its file and lock may go (refused otherwise).
        if (!AsyncQueue.deleteRing(ring)) {
            throw new IllegalStateException("ring " + ring + " was gone before deleteRing");
        }

        // The queue alone, as any reader sees it after the drain: every order once, in order, at the same indices.
        try (SpoolQueue queue = SpoolQueue.open(directory);
             ExcerptTailer tailer = queue.createTailer()) {
            final OrderCheck check = new OrderCheck();
            while (tailer.read(check)) {
                // each read delivers one excerpt to the check
            }
            if (check.received != ORDERS || check.lastIndex != lastIndexRead) {
                throw new IllegalStateException("the queue holds " + check.received + " orders up to index 0x"
                        + Long.toHexString(check.lastIndex) + ", expected " + ORDERS + " up to 0x"
                        + Long.toHexString(lastIndexRead));
            }
        }
        System.out.println("OK: " + ORDERS + " orders through ring " + ring + ", " + ringReads
                + " of them read from the ring before they were drained; the queue holds them all, the last at index 0x"
                + Long.toHexString(lastIndexRead) + ", in " + directory);
    }

    /** Appends every order with claim and commit, writing straight into the ring's shared memory. */
    private static final class Producer implements Runnable {
        private final AsyncAppender appender;
        private final AtomicLong lastIndex = new AtomicLong(-1);
        private final AtomicReference<Throwable> failure = new AtomicReference<>();

        Producer(final AsyncAppender appender) {
            this.appender = appender;
        }

        @Override
        public void run() {
            try {
                long position = -1;
                for (int sequence = 0; sequence < ORDERS; sequence++) {
                    // while the ring is full, claim waits for the drainer (the default back-pressure: up to 10 s,
                    // then RingFullException); under BackPressure.returnCode() it returns
                    // RingBuffer.INSUFFICIENT_CAPACITY instead, for the caller to decide
                    position = appender.claim(ORDER_LENGTH);
                    final long offset = appender.payloadOffset(position);
                    appender.buffer().writeLong(offset, sequence);
                    appender.buffer().writeLong(offset + Long.BYTES, 10_000L + sequence % 100);
                    appender.commit(position);
                }
                // The index a record gets in the queue is known once it is drained; ask only where it is needed.
                lastIndex.set(appender.awaitIndex(position, 10, TimeUnit.SECONDS));
            } catch (Throwable e) {
                failure.set(e);
            }
        }
    }

    /** Checks that orders arrive in sequence, at rising indices, and counts them. */
    private static final class OrderCheck implements ExcerptHandler {
        private int received;
        private long lastIndex = -1;

        @Override
        public void onExcerpt(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
            final long sequence = bytes.readLong(offset);
            if (length != ORDER_LENGTH || sequence != received || index <= lastIndex) {
                throw new IllegalStateException("expected order " + received + " after index 0x"
                        + Long.toHexString(lastIndex) + ", read order " + sequence + " (" + length
                        + " bytes) at index 0x" + Long.toHexString(index));
            }
            received++;
            lastIndex = index;
        }
    }
}
