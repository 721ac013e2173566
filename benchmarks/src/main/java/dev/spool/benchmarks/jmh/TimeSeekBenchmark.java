package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.BenchmarkDirectory;
import dev.spool.benchmarks.support.Payloads;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import org.agrona.concurrent.EpochClock;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.time.Instant;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * The cost of time seeks: {@link ExcerptTailer#moveToTime(Instant)} to a random time in a queue of
 * several hourly cycle files, and what recording index times adds to an append (one clock read and one store per
 * {@code indexSpacing} appends; compare {@code append} with {@code indexTimes} true and false).
 * <p>
 * The seek's queue holds {@value #EXCERPTS_PER_CYCLE} 32-byte excerpts in each of {@code cycles} hourly files,
 * written on a clock that advances 1 ms per excerpt, so the times are known and every target falls inside the
 * data; a seek is a binary search over the files (each probe maps the file), one over the file's index entries,
 * then a walk of fewer than 64 excerpts. The result allocates: it lists the directory, as {@code toStart} does.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TimeSeekBenchmark {
    private static final int EXCERPTS_PER_CYCLE = 1 << 18;
    private static final long START = Instant.parse("2026-01-05T00:00:00Z").toEpochMilli();

    /** JMH instantiates the benchmark. */
    public TimeSeekBenchmark() {
    }

    /**
     * {@link ExcerptTailer#moveToTime(Instant)} to a random time, then the read of the excerpt found.
     *
     * @param state the pre-filled queue.
     * @return the index the tailer moved to.
     */
    @Benchmark
    public long moveToTime(final SeekState state) {
        return state.seek();
    }

    /**
     * {@link ExcerptAppender#append(byte[])} of 32 bytes, with or without index times.
     *
     * @param state the queue being appended to.
     * @return the index of the excerpt.
     */
    @Benchmark
    public long append(final AppendState state) {
        return state.appender.append(state.payload);
    }

    /** A clock the fill moves by hand. */
    private static final class FillClock implements EpochClock {
        private long millis = START;

        @Override
        public long time() {
            return millis;
        }
    }

    /** A queue of {@code cycles} hourly files with index times, sought round and round. */
    @State(Scope.Thread)
    public static class SeekState {
        private static final int TARGETS = 4096;

        /** Hourly cycle files in the queue. */
        @Param({"1", "16"})
        public int cycles;

        private BenchmarkDirectory directory;
        private SpoolQueue queue;
        private ExcerptTailer tailer;
        private final Instant[] targets = new Instant[TARGETS];
        private int next;

        /** JMH instantiates the state. */
        public SeekState() {
        }

        /** Fills the queue, one excerpt a millisecond, and picks the target times. */
        @Setup(Level.Trial)
        public void fillQueue() {
            directory = BenchmarkDirectory.create("spool-seek-");
            final FillClock clock = new FillClock();
            queue = Payloads.spoolQueue(directory.path()).rollCycle(RollCycle.HOURLY).indexTimes(true)
                    .epochClock(clock).openOrCreate();
            final byte[] payload = Payloads.create(32);
            try (ExcerptAppender appender = queue.createAppender()) {
                for (int cycle = 0; cycle < cycles; cycle++) {
                    clock.millis = START + cycle * RollCycle.HOURLY.lengthMillis();
                    for (int i = 0; i < EXCERPTS_PER_CYCLE; i++) {
                        appender.append(payload);
                        clock.millis++;
                    }
                }
            }
            final SplittableRandom random = new SplittableRandom(42);
            for (int i = 0; i < TARGETS; i++) {
                targets[i] = Instant.ofEpochMilli(START + random.nextInt(cycles) * RollCycle.HOURLY.lengthMillis()
                        + random.nextInt(EXCERPTS_PER_CYCLE));
            }
            tailer = queue.createTailer();
        }

        /** Closes and deletes the queue. */
        @TearDown(Level.Trial)
        public void deleteQueue() {
            tailer.close();
            queue.close();
            directory.delete();
        }

        long seek() {
            tailer.moveToTime(targets[next++ & (TARGETS - 1)]);
            return tailer.index();
        }
    }

    /** A new, empty queue for each iteration, with or without index times. */
    @State(Scope.Thread)
    public static class AppendState {
        /** Whether index entries record times. */
        @Param({"false", "true"})
        public boolean indexTimes;

        private final byte[] payload = Payloads.create(32);
        private BenchmarkDirectory directory;
        private SpoolQueue queue;
        private ExcerptAppender appender;

        /** JMH instantiates the state. */
        public AppendState() {
        }

        /** Creates an empty queue and its appender. */
        @Setup(Level.Iteration)
        public void createQueue() {
            directory = BenchmarkDirectory.create("spool-append-times-");
            queue = Payloads.spoolQueue(directory.path()).indexTimes(indexTimes).openOrCreate();
            appender = queue.createAppender();
        }

        /** Closes and deletes the queue. */
        @TearDown(Level.Iteration)
        public void deleteQueue() {
            appender.close();
            queue.close();
            directory.delete();
        }
    }
}
