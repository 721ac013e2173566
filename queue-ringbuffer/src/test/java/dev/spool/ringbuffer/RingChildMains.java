package dev.spool.ringbuffer;

import dev.spool.queue.Messages;
import dev.spool.queue.PauseStrategy;
import dev.spool.queue.SpoolQueue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

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
                .backPressure(BackPressure.awaitThenThrow(Duration.ofSeconds(120), PauseStrategy::backoff)).build();
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
}
