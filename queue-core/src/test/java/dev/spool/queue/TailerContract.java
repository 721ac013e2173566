package dev.spool.queue;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/**
 * What every tailer does, whatever it reads from: {@link ExcerptTailer} and the ring buffer's {@code AsyncTailer}
 * run these same test bodies through a {@link Subject}. Payloads are one int, the append's sequence number.
 */
public abstract class TailerContract extends SpoolTestBase {

    /** @return the queue under test, opened or created in {@link #tempDir}. */
    protected abstract Subject open();

    /** A queue and the way its tailers are made, as a test sees them. */
    public interface Subject extends AutoCloseable {
        /** Appends a 4-byte payload holding {@code value}, from the calling thread. */
        void append(int value);

        /** @return an unnamed tailer. */
        Reader createTailer();

        /** @return a named tailer. */
        Reader createTailer(String name, CommitMode mode);

        @Override
        void close();
    }

    /** A tailer under test. */
    public interface Reader extends AutoCloseable {
        /** @return the value of the next excerpt, or -1 if there is none; {@link #lastIndex()} is then its index. */
        int read();

        /** @return the index of the last excerpt {@link #read()} returned. */
        long lastIndex();

        boolean await(long timeout, TimeUnit unit) throws InterruptedException;

        boolean moveToIndex(long index);

        void toStart();

        void toEnd();

        void commit(long index);

        void commit();

        String name();

        @Override
        void close();
    }

    /** A {@link Reader} over any {@link ExcerptReader}: the queue's tailer and the ring's read through one adapter. */
    public static final class ReaderOf implements Reader {
        private final ExcerptReader reader;
        private long index = -1;
        private int value;

        public ReaderOf(final ExcerptReader reader) {
            this.reader = reader;
        }

        @Override
        public int read() {
            final boolean read = reader.read((bytes, offset, length, at) -> {
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
            return reader.await(timeout, unit);
        }

        @Override
        public boolean moveToIndex(final long index) {
            return reader.moveToIndex(index);
        }

        @Override
        public void toStart() {
            reader.toStart();
        }

        @Override
        public void toEnd() {
            reader.toEnd();
        }

        @Override
        public void commit(final long index) {
            reader.commit(index);
        }

        @Override
        public void commit() {
            reader.commit();
        }

        @Override
        public String name() {
            return reader.name();
        }

        @Override
        public void close() {
            reader.close();
        }
    }

    private static long[] appendAndIndex(final Subject subject, final int count) {
        for (int i = 0; i < count; i++) {
            subject.append(i);
        }
        final long[] indices = new long[count];
        try (Reader reader = subject.createTailer()) {
            for (int i = 0; i < count; i++) {
                assertEquals(i, reader.read(), "value " + i);
                indices[i] = reader.lastIndex();
            }
            assertEquals(-1, reader.read(), "nothing after the last");
        }
        return indices;
    }

    @Test
    void shouldReadEveryExcerptOnceInOrderWithRisingIndices() {
        try (Subject subject = open()) {
            final long[] indices = appendAndIndex(subject, 50);
            for (int i = 1; i < indices.length; i++) {
                assertTrue(indices[i] > indices[i - 1], "index " + i + " rises");
            }
        }
    }

    @Test
    void shouldMoveToAnIndexAndReadOnFromThere() {
        try (Subject subject = open(); Reader reader = subject.createTailer()) {
            final long[] indices = appendAndIndex(subject, 30);
            assertTrue(reader.moveToIndex(indices[17]));
            assertEquals(17, reader.read());
            assertEquals(indices[17], reader.lastIndex());
            assertTrue(reader.moveToIndex(indices[3]), "backwards too");
            assertEquals(3, reader.read());
            assertFalse(reader.moveToIndex(indices[29] + 1), "no excerpt has that index yet");
            assertFalse(reader.moveToIndex(-1));
            assertEquals(4, reader.read(), "a failed move leaves the position as it was");
        }
    }

    @Test
    void shouldMoveToTheStartAndToTheEnd() {
        try (Subject subject = open(); Reader reader = subject.createTailer()) {
            appendAndIndex(subject, 20);
            assertEquals(0, reader.read());
            assertEquals(1, reader.read());
            reader.toEnd();
            assertEquals(-1, reader.read(), "nothing after the end");
            subject.append(20);
            assertEquals(20, reader.read(), "what comes after the end");
            reader.toStart();
            assertEquals(0, reader.read(), "back at the start");
        }
    }

    @Test
    void shouldMoveToTheEndOfAnEmptyQueueAndReadWhatComes() {
        try (Subject subject = open(); Reader reader = subject.createTailer()) {
            reader.toEnd();
            assertEquals(-1, reader.read());
            subject.append(7);
            assertEquals(7, reader.read());
        }
    }

    @Test
    void shouldAwaitAnAppendOfAnotherThreadWithoutSpinning() throws Exception {
        try (Subject subject = open(); Reader reader = subject.createTailer()) {
            final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
            final long cpuBefore = threads.getCurrentThreadCpuTime();
            final long wallBefore = System.nanoTime();
            assertFalse(reader.await(300, TimeUnit.MILLISECONDS), "nothing to read");
            final long cpu = threads.getCurrentThreadCpuTime() - cpuBefore;
            final long wall = System.nanoTime() - wallBefore;
            assertTrue(wall >= TimeUnit.MILLISECONDS.toNanos(300), "waited the timeout");
            assertTrue(cpu < wall / 4, "parked, not spinning: cpu " + cpu / 1000 + " us in " + wall / 1000 + " us");

            final CountDownLatch waiting = new CountDownLatch(1);
            final Thread appender = new Thread(() -> {
                try {
                    waiting.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
                subject.append(42);
            }, "contract-appender");
            appender.start();
            waiting.countDown();
            assertTrue(reader.await(30, TimeUnit.SECONDS), "woken by the append");
            assertEquals(42, reader.read());
            appender.join();
        }
    }

    @Test
    void shouldThrowWhenInterruptedWhileAwaiting() {
        try (Subject subject = open(); Reader reader = subject.createTailer()) {
            Thread.currentThread().interrupt();
            assertThrows(InterruptedException.class, () -> reader.await(10, TimeUnit.SECONDS));
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void shouldResumeANamedTailerAfterItsLastRead() {
        try (Subject subject = open()) {
            appendAndIndex(subject, 20);
            try (Reader reader = subject.createTailer("risk", CommitMode.ON_READ)) {
                assertEquals("risk", reader.name());
                for (int i = 0; i < 6; i++) {
                    assertEquals(i, reader.read());
                }
            }
            try (Reader resumed = subject.createTailer("risk", CommitMode.ON_READ);
                 Reader other = subject.createTailer("audit", CommitMode.ON_READ)) {
                assertEquals(6, resumed.read(), "after the last read under the name");
                assertEquals(0, other.read(), "a new name starts at the start");
            }
        }
    }

    @Test
    void shouldResumeAnExplicitTailerAfterItsLastCommit() {
        try (Subject subject = open()) {
            final long[] indices = appendAndIndex(subject, 20);
            try (Reader reader = subject.createTailer("settle", CommitMode.EXPLICIT)) {
                for (int i = 0; i < 9; i++) {
                    assertEquals(i, reader.read());
                }
                reader.commit(indices[4]);
            }
            try (Reader resumed = subject.createTailer("settle", CommitMode.EXPLICIT)) {
                assertEquals(5, resumed.read(), "after the commit, not the last read");
                resumed.read();
                resumed.commit();
            }
            try (Reader resumed = subject.createTailer("settle", CommitMode.EXPLICIT)) {
                assertEquals(7, resumed.read(), "commit() persists the highest index read");
            }
        }
    }

    @Test
    void shouldRefuseACommitOfAnUnreadIndexOrWithoutAName() {
        try (Subject subject = open(); Reader unnamed = subject.createTailer();
             Reader named = subject.createTailer("settle", CommitMode.EXPLICIT)) {
            final long[] indices = appendAndIndex(subject, 5);
            assertEquals(0, unnamed.read());
            final SpoolException noName = assertThrows(SpoolException.class, () -> unnamed.commit(indices[0]));
            assertTrue(noName.getMessage().contains("unnamed"), noName.getMessage());
            assertThrows(SpoolException.class, named::commit, "nothing read yet");
            assertEquals(0, named.read());
            final SpoolException ahead = assertThrows(SpoolException.class, () -> named.commit(indices[3]));
            assertTrue(ahead.getMessage().contains("'settle'") && ahead.getMessage().contains(Long.toHexString(indices[3])),
                    ahead.getMessage());
        }
    }
}
