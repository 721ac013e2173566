package dev.spool.queue;

import java.util.concurrent.TimeUnit;

/** The tailer contract for a queue's own {@link ExcerptTailer}. */
class ExcerptTailerContractTest extends TailerContract {

    @Override
    protected Subject open() {
        final SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
        final ExcerptAppender appender = queue.createAppender();
        return new Subject() {
            @Override
            public void append(final int value) {
                final long offset = appender.claim(Integer.BYTES);
                appender.claimedBytes().writeInt(offset, value);
                appender.commit(Integer.BYTES);
            }

            @Override
            public Reader createTailer() {
                return new Adapter(queue.createTailer());
            }

            @Override
            public Reader createTailer(final String name, final CommitMode mode) {
                return new Adapter(queue.createTailer(name, mode));
            }

            @Override
            public void close() {
                queue.close();
            }
        };
    }

    private static final class Adapter implements Reader {
        private final ExcerptTailer tailer;
        private long index = -1;
        private int value;

        Adapter(final ExcerptTailer tailer) {
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
