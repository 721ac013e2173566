package dev.spool.queue;


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
                return new TailerContract.ReaderOf(queue.createTailer());
            }

            @Override
            public Reader createTailer(final String name, final CommitMode mode) {
                return new TailerContract.ReaderOf(queue.createTailer(name, mode));
            }

            @Override
            public void close() {
                queue.close();
            }
        };
    }
}
