package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.latency.variants.LatencyVariant;
import dev.spool.benchmarks.support.BenchmarkDirectory;
import net.openhft.affinity.Affinity;
import net.openhft.affinity.AffinityLock;
import net.openhft.chronicle.jlbh.JLBH;
import net.openhft.chronicle.jlbh.JLBHOptions;
import net.openhft.chronicle.jlbh.JLBHTask;
import org.HdrHistogram.Histogram;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * Runs one variant of one experiment under JLBH, in the JVM it is called in: JLBH's thread (the caller) sends at
 * the experiment's rate, a reader thread busy-spins on the variant and samples each message's latency into JLBH
 * and into an HdrHistogram. A batch variant ({@link LatencyVariant#messagesPerSend()} above 1) is run as one
 * JLBH iteration per batch, because JLBH waits for exactly one sample per iteration: rate and run length are
 * divided by the batch size, and the rates reported are of messages. Two threads spin; a third,
 * {@value #MONITOR_THREAD}, wakes every {@value #PROGRESS_INTERVAL_SECONDS} s to print the progress of long runs
 * and to abort a run in which no message arrives for {@value #STALL_SECONDS} s (JLBH would otherwise wait for its
 * samples forever).
 * <p>
 * Given a {@link CoreLayout}, the sender and the reader pin themselves to their CPUs with OpenHFT's
 * {@link Affinity}, and the variant is asked to pin its drainer ({@link LatencyVariant#pinBackgroundThread()}); the
 * monitor thread is started before the sender pins itself, so it keeps the JVM's whole affinity.
 */
final class JlbhRun {
    static final String READER_THREAD = "jlbh-reader";
    static final String MONITOR_THREAD = "jlbh-monitor";
    static final int PROGRESS_INTERVAL_SECONDS = 10;
    static final int STALL_SECONDS = 60;
    /** Latencies above a minute are recorded as a minute in the HdrHistogram; JLBH's own goes further. */
    private static final long HIGHEST_TRACKABLE_NS = TimeUnit.MINUTES.toNanos(1);
    /** Runs at least this long get progress lines while they run, not only at their end. */
    private static final double LONG_RUN_SECONDS = 2 * PROGRESS_INTERVAL_SECONDS;

    private final String experiment;
    private final LatencyVariant variant;
    private final int length;
    private final int runs;
    /** Messages per JLBH iteration: 1, or the batch size of a batch variant. */
    private final int perSend;
    /** JLBH iterations (sends, samples) per run: the messages of a run over {@link #perSend}, rounded up. */
    private final int iterations;
    private final int warmUpIterations;
    /** Messages per second JLBH is asked for: its iterations per second times {@link #perSend}. */
    private final int rate;
    /** JLBH iterations per second. */
    private final int sendRate;
    private final PrintStream progress;
    /** Where the hot threads run, or null: not pinned. */
    private final CoreLayout cores;

    /**
     * @param experiment       the experiment's name, for progress lines.
     * @param variant          what to measure.
     * @param length           bytes per message.
     * @param rate             messages per second; a batch variant's JLBH runs at this over its batch size
     *                         (rounded, at least 1), so the rate asked for is that times the batch size.
     * @param runs             measured runs.
     * @param iterations       messages per run; a batch variant sends this over its batch size, rounded up.
     * @param warmUpIterations messages before the first run, sent unpaced by JLBH; rounded up like a run.
     * @param cores            the CPUs of the sender, the reader and the drainer, or null to pin none.
     * @param progress         where progress lines and warnings go.
     */
    JlbhRun(final String experiment, final LatencyVariant variant, final int length, final int rate, final int runs,
            final int iterations, final int warmUpIterations, final CoreLayout cores, final PrintStream progress) {
        this.experiment = experiment;
        this.variant = variant;
        this.length = length;
        this.runs = runs;
        this.perSend = variant.messagesPerSend();
        if (perSend < 1) {
            throw new IllegalArgumentException(variant.name() + ": messagesPerSend must be at least 1, was " + perSend);
        }
        this.iterations = ceilDiv(iterations, perSend);
        this.warmUpIterations = ceilDiv(warmUpIterations, perSend);
        this.sendRate = (int) Math.max(1, Math.round(rate / (double) perSend));
        this.rate = (int) Math.min(Integer.MAX_VALUE, (long) sendRate * perSend);
        this.cores = cores;
        this.progress = progress;
    }

    /**
     * Creates the variant's directory, runs JLBH, deletes the directory.
     *
     * @return what was measured.
     * @throws InterruptedException if interrupted while waiting for the reader.
     */
    VariantResult run() throws InterruptedException {
        final BenchmarkDirectory directory = BenchmarkDirectory.create("jlbh-" + variant.name() + "-");
        try {
            variant.rate(rate);
            if (cores != null) {
                variant.pinBackgroundThread();
            }
            variant.init(directory.path(), length);
            try {
                return measure();
            } finally {
                variant.close();
            }
        } finally {
            directory.delete();
        }
    }

    private VariantResult measure() throws InterruptedException {
        final ByteArrayOutputStream log = new ByteArrayOutputStream();
        final PrintStream jlbhOut = new PrintStream(log, true, StandardCharsets.UTF_8);
        final SendTask task = new SendTask();
        final JLBHOptions options = new JLBHOptions()
                .warmUpIterations(warmUpIterations)
                .iterations(iterations)
                .runs(runs)
                .throughput(sendRate)
                .accountForCoordinatedOmission(true)
                // its jitter thread would be a third thread spinning on two CPUs, measuring mostly itself
                .recordOSJitter(false)
                // Not JLBH's own pinning, which takes any free CPU: unpinned, since with no isolated CPUs a pinned
                // sender cannot be moved off the CPU that the kernel, the JIT, GC or another tenant of a shared VM
                // needs; or pinned to the CPU the layout names, on JLBH's thread once JLBH has started any thread
                // of its own (a new thread inherits its parent's affinity). JLBH releases a lock only if it got one.
                .acquireLock(this::pinSender)
                .jlbhTask(task);
        final JLBH jlbh = new JLBH(options, jlbhOut, null);
        final Histogram histogram = new Histogram(HIGHEST_TRACKABLE_NS, 3);
        final ReaderLoop reader = new ReaderLoop(jlbh, task, histogram);
        final Thread readerThread = new Thread(reader, READER_THREAD);
        readerThread.setDaemon(true);
        readerThread.start();
        reader.awaitOpen();
        final Monitor monitor = new Monitor(jlbh, task, reader);
        final Thread monitorThread = new Thread(monitor, MONITOR_THREAD);
        monitorThread.setDaemon(true);
        monitorThread.start();
        final String threads;
        try {
            jlbh.start();
        } finally {
            threads = threadNames();
            reader.stop();
            readerThread.join();
            monitor.stop(monitorThread);
        }
        reader.rethrowFailure();
        if (monitor.stalled) {
            throw new IllegalStateException(variant.name() + ": no message arrived for " + STALL_SECONDS
                    + " s; JLBH was aborted");
        }
        final long expected = warmUpIterations + (long) runs * iterations;
        final List<double[]> percentileRuns = jlbh.percentileRuns();
        if (reader.received() != expected || percentileRuns.size() != runs) {
            throw new IllegalStateException(variant.name() + ": the reader got " + reader.received() + " of "
                    + expected + (perSend == 1 ? " messages" : " batches") + " and JLBH reported "
                    + percentileRuns.size() + " of " + runs + " runs");
        }
        final double[] jlbhPercentiles = net.openhft.chronicle.core.util.Histogram.percentilesFor(iterations);
        final double[][] latencyNs = new double[runs][];
        for (int run = 0; run < runs; run++) {
            latencyNs[run] = VariantResult.rows(jlbhPercentiles, percentileRuns.get(run));
        }
        return new VariantResult(variant.name(), variant.description(), rate, iterations, warmUpIterations, perSend,
                latencyNs, task.achievedRates, histogram, threads, log.toString(StandardCharsets.UTF_8));
    }

    /** @return no lock for JLBH to release, the sender pinned to its CPU if the run pins its threads. */
    private AffinityLock pinSender() {
        if (cores != null) {
            pin(cores.sender(), "the sender");
        }
        return null;
    }

    /**
     * Pins the calling thread to one CPU, and checks that it holds: a run the layout asked to pin must not quietly
     * run unpinned.
     */
    private static void pin(final int cpu, final String thread) {
        Affinity.setAffinity(cpu);
        final BitSet affinity = Affinity.getAffinity();
        if (affinity.cardinality() != 1 || !affinity.get(cpu)) {
            throw new IllegalStateException("cannot pin " + thread + " to CPU " + cpu + ": its affinity is " + affinity
                    + " (OpenHFT Affinity needs Linux and JNA)");
        }
    }

    private static int ceilDiv(final int dividend, final int divisor) {
        return (int) (((long) dividend + divisor - 1) / divisor);
    }

    private static String threadNames() {
        final TreeSet<String> names = new TreeSet<>();
        for (final Thread thread : Thread.getAllStackTraces().keySet()) {
            names.add(thread.getName() + (thread.isDaemon() ? "" : " (non-daemon)"));
        }
        return String.join(", ", names);
    }

    /**
     * JLBH's task, run on JLBH's thread: sends, and keeps the time of each run's first and last send to tell what
     * rate the run achieved. The bookkeeping is two field writes per send and one clock read per run.
     */
    private final class SendTask implements JLBHTask {
        final double[] achievedRates = new double[runs];
        /** Set when JLBH has started: from then on it can be aborted. */
        volatile boolean started;
        /** The run in progress, from 0, or -1 during warm-up; for the monitor. */
        final AtomicInteger run = new AtomicInteger(-1);
        /** JLBH iterations (messages, or batches) sent in the run in progress; for the monitor. */
        final AtomicLong sentInRun = new AtomicLong();
        /** The due time of the run's first message; for the monitor. */
        final AtomicLong runStartNs = new AtomicLong();
        private final long variantStartNs = System.nanoTime();
        private boolean measuring;
        private long sent;
        private long lastSendNs;

        @Override
        public void init(final JLBH jlbh) {
            started = true;
        }

        @Override
        public void run(final long startTimeNs) {
            variant.send(startTimeNs);
            if (measuring) {
                final long sent = ++this.sent;
                if (sent == 1) {
                    // JLBH starts each run's clock at the first send, so its due time is when the run began
                    runStartNs.lazySet(startTimeNs);
                } else if (sent == iterations) {
                    lastSendNs = System.nanoTime();
                }
                // an ordered store, no fence: the monitor needs it eventually, the sender must not stall for it
                sentInRun.lazySet(sent);
            }
        }

        @Override
        public void warmedUp() {
            measuring = true;
            run.set(0);
        }

        @Override
        public void runComplete() {
            final int finished = run.get();
            final double seconds = (lastSendNs - runStartNs.get()) / 1e9;
            // messages, not iterations: a batch's messages are all sent at its due time
            final double achieved = iterations > 1 && seconds > 0 ? (iterations - 1) * (double) perSend / seconds
                    : rate;
            achievedRates[finished] = achieved;
            progress.printf(Locale.ROOT, "  %s %s run %d of %d: %,d messages%s in %.2f s, %s msg/s sent (%s asked), "
                            + "%.0f s since the variant started%n",
                    experiment, variant.name(), finished + 1, runs, (long) iterations * perSend,
                    perSend == 1 ? "" : String.format(Locale.ROOT, " (%,d batches of %d)", iterations, perSend),
                    seconds,
                    VariantResult.formatRate(achieved), VariantResult.formatRate(rate),
                    (System.nanoTime() - variantStartNs) / 1e9);
            if (!VariantResult.rateHeld(achieved, rate)) {
                progress.printf(Locale.ROOT, "WARNING: %s %s run %d sent %s msg/s, %.1f%% below the %s msg/s asked"
                                + " for: the sender did not hold the rate, so this run's latencies flatter%n",
                        experiment, variant.name(), finished + 1, VariantResult.formatRate(achieved),
                        100 * (1 - achieved / rate), VariantResult.formatRate(rate));
            }
            sent = 0;
            sentInRun.lazySet(0);
            run.set(finished + 1);
        }
    }

    /** The reader thread: spins on the variant and samples every message into JLBH and the HdrHistogram. */
    private final class ReaderLoop implements Runnable {
        private final JLBH jlbh;
        private final SendTask task;
        private final Histogram histogram;
        private final CountDownLatch opened = new CountDownLatch(1);
        private final AtomicLong received = new AtomicLong();
        private volatile boolean stopped;
        private volatile Throwable failure;

        ReaderLoop(final JLBH jlbh, final SendTask task, final Histogram histogram) {
            this.jlbh = jlbh;
            this.task = task;
            this.histogram = histogram;
        }

        @Override
        public void run() {
            if (cores != null) {
                pin(cores.reader(), "the reader");
            }
            try {
                variant.openReader();
            } catch (RuntimeException | Error e) {
                failure = e;
                opened.countDown();
                return;
            }
            opened.countDown();
            try {
                spin();
            } catch (RuntimeException | Error e) {
                failure = e;
                abortJlbh();
            } finally {
                variant.closeReader();
            }
        }

        /** The measured loop: no allocation, no lock, no call but the variant's and the samplers'. */
        private void spin() {
            final LatencyVariant variant = JlbhRun.this.variant;
            final JLBH jlbh = this.jlbh;
            final Histogram histogram = this.histogram;
            final long warmUp = warmUpIterations;
            final AtomicLong published = this.received;
            long received = 0;
            // busy-spin without Thread.onSpinWait(), as the articles' readers do: a PAUSE would add to every sample
            while (!stopped) {
                final long startTimeNs = variant.receive();
                if (startTimeNs != LatencyVariant.NOTHING) {
                    final long latencyNs = System.nanoTime() - startTimeNs;
                    jlbh.sample(latencyNs);
                    // JLBH's count and this one agree: the first warmUp samples are warm-up
                    if (++received > warmUp) {
                        histogram.recordValue(Math.min(Math.max(latencyNs, 0), HIGHEST_TRACKABLE_NS));
                    }
                    published.lazySet(received);
                }
            }
        }

        /** JLBH waits for samples that will not come now: abort it once it has started, when abort works. */
        private void abortJlbh() {
            while (!task.started && !stopped) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            if (task.started) {
                jlbh.abort();
            }
        }

        void awaitOpen() throws InterruptedException {
            opened.await();
            rethrowFailure();
        }

        void stop() {
            stopped = true;
        }

        long received() {
            return received.get();
        }

        void rethrowFailure() {
            final Throwable failure = this.failure;
            if (failure != null) {
                throw new IllegalStateException(variant.name() + ": the reader thread failed: " + failure, failure);
            }
        }
    }

    /** Prints the progress of long runs and aborts JLBH when no message arrives for {@value #STALL_SECONDS} s. */
    private final class Monitor implements Runnable {
        private final JLBH jlbh;
        private final SendTask task;
        private final ReaderLoop reader;
        private volatile boolean stopped;
        volatile boolean stalled;

        Monitor(final JLBH jlbh, final SendTask task, final ReaderLoop reader) {
            this.jlbh = jlbh;
            this.task = task;
            this.reader = reader;
        }

        @Override
        public void run() {
            final double runSeconds = iterations / (double) sendRate;
            long lastReceived = reader.received();
            long lastChangeNs = System.nanoTime();
            while (!stopped) {
                LockSupport.parkNanos(TimeUnit.SECONDS.toNanos(PROGRESS_INTERVAL_SECONDS));
                if (stopped) {
                    return;
                }
                final long now = System.nanoTime();
                final long received = reader.received();
                if (received != lastReceived) {
                    lastReceived = received;
                    lastChangeNs = now;
                } else if (now - lastChangeNs > TimeUnit.SECONDS.toNanos(STALL_SECONDS) && task.started) {
                    progress.printf("ERROR: %s %s: no message arrived for %d s; aborting JLBH%n",
                            experiment, variant.name(), STALL_SECONDS);
                    stalled = true;
                    jlbh.abort();
                    return;
                }
                final int run = task.run.get();
                final long sent = task.sentInRun.get();
                if (runSeconds >= LONG_RUN_SECONDS && run >= 0 && run < runs && sent > 1) {
                    final double seconds = (now - task.runStartNs.get()) / 1e9;
                    progress.printf(Locale.ROOT, "  %s %s run %d of %d: %.0f s of %.0f s, %s msg/s so far%n",
                            experiment, variant.name(), run + 1, runs, seconds, runSeconds,
                            VariantResult.formatRate(sent * (double) perSend / seconds));
                }
            }
        }

        void stop(final Thread thread) throws InterruptedException {
            stopped = true;
            LockSupport.unpark(thread);
            thread.join();
        }
    }
}
