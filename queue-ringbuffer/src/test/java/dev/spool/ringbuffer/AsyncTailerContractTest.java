package dev.spool.ringbuffer;

import dev.spool.queue.CommitMode;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.TailerContract;
import org.junit.jupiter.api.Nested;

import java.util.concurrent.TimeUnit;

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
            return new Adapter(async.createTailer());
        }

        @Override
        public TailerContract.Reader createTailer(final String name, final CommitMode mode) {
            return new Adapter(async.createTailer(name, mode));
        }

        @Override
        public void close() {
            async.close();
        }
    }

    private static final class Adapter implements TailerContract.Reader {
        private final AsyncTailer tailer;
        private long index = -1;
        private int value;

        Adapter(final AsyncTailer tailer) {
            this.tailer = tailer;
        }

        @Override
        public int read() {
            final boolean read = tailer.read((bytes, offset, length, at) -> {
                index = at;
                value = bytes.readInt(offset);
            });
            return read ? value : -1;
        }

        @Override
        public long lastIndex() {
            return index;
        }

        @Override
        public boolean await(final long timeout, final TimeUnit unit) throws InterruptedException {
            return tailer.await(timeout, unit);
        }

        @Override
        public boolean moveToIndex(final long index) {
            return tailer.moveToIndex(index);
        }

        @Override
        public void toStart() {
            tailer.toStart();
        }

        @Override
        public void toEnd() {
            tailer.toEnd();
        }

        @Override
        public void commit(final long index) {
            tailer.commit(index);
        }

        @Override
        public void commit() {
            tailer.commit();
        }

        @Override
        public String name() {
            return tailer.name();
        }

        @Override
        public void close() {
            tailer.close();
        }
    }
}
