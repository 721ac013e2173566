package dev.spool.ringbuffer;

import dev.spool.queue.CommitMode;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.TailerContract;
import org.junit.jupiter.api.Nested;


/**
 * The tailer contract for {@link AsyncTailer}, twice: with every record still in the ring (nothing drained), and
 * with each record drained into the queue as soon as it is appended.
 */
class AsyncTailerContractTest {

    @Nested
    class Undrained extends TailerContract {
        @Override
        protected Subject open() {
            return new AsyncSubject(AsyncQueue.builder(SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20))
                    .ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16).build(), false);
        }
    }

    @Nested
    class Drained extends TailerContract {
        @Override
        protected Subject open() {
            return new AsyncSubject(AsyncQueue.builder(SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20))
                    .ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16).ringReserve(0).build(), true);
        }
    }

    private static final class AsyncSubject implements TailerContract.Subject {
        private final AsyncQueue async;
        private final AsyncAppender appender;
        private final Drainer drainer;

        AsyncSubject(final AsyncQueue async, final boolean drain) {
            this.async = async;
            this.appender = async.createAppender();
            this.drainer = drain ? async.createDrainer() : null;
        }

        @Override
        public void append(final int value) {
            final long position = appender.claim(Integer.BYTES);
            appender.buffer().writeInt(appender.payloadOffset(position), value);
            appender.commit(position);
            if (drainer != null) {
                while (!drainer.ring().isEmpty()) {
                    drainer.doWork();
                }
            }
        }

        @Override
        public TailerContract.Reader createTailer() {
            return new TailerContract.ReaderOf(async.createTailer());
        }

        @Override
        public TailerContract.Reader createTailer(final String name, final CommitMode mode) {
            return new TailerContract.ReaderOf(async.createTailer(name, mode));
        }

        @Override
        public void close() {
            async.close();
        }
    }
}
