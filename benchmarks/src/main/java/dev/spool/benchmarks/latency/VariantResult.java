package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.support.SendRate;

import dev.spool.benchmarks.latency.variants.LatencyVariant;
import org.HdrHistogram.Histogram;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Properties;
import java.util.zip.DataFormatException;

/**
 * What one variant measured in one experiment: JLBH's percentiles for each run, the rate each run achieved, and
 * every measured sample in an HdrHistogram. The worker JVM ({@link JlbhMain}) writes it as a properties file,
 * which the launcher reads to print the tables and draw the plot.
 */
final class VariantResult {
    /** The rows of the article's SUMMARY table, as fractions; the last is the worst sample. */
    static final double[] PERCENTILES = {0.5, 0.9, 0.99, 0.997, 0.999, 0.9997, 0.9999, 1.0};
    /** Their labels, as the article prints them. */
    static final List<String> LABELS = List.of("50", "90", "99", "99.7", "99.9", "99.97", "99.99", "worst");
    /** A run that sends this much below the rate asked for did not hold the rate: its numbers flatter. */
    static final double RATE_TOLERANCE = SendRate.TOLERANCE;

    private final String variant;
    private final String description;
    private final int rate;
    private final int iterations;
    private final int warmUpIterations;
    private final int messagesPerSend;
    private final double[][] latencyNs;
    private final double[] achievedRates;
    private final Histogram histogram;
    private final String threads;
    private final String jlbhLog;

    /**
     * @param variant          the variant's name.
     * @param description      what it does.
     * @param rate             messages per second asked for.
     * @param iterations       JLBH iterations (samples) per run: messages, or batches for a batch variant.
     * @param warmUpIterations JLBH iterations before the first run.
     * @param messagesPerSend  messages per iteration, {@link LatencyVariant#messagesPerSend()}.
     * @param latencyNs        per run, one value per {@link #PERCENTILES} row in ns, NaN where JLBH gives none.
     * @param achievedRates    per run, messages (not batches) per second sent.
     * @param histogram        every measured sample, ns.
     * @param threads          the threads of the worker JVM during the run.
     * @param jlbhLog          what JLBH printed.
     */
    VariantResult(final String variant, final String description, final int rate, final int iterations,
                  final int warmUpIterations, final int messagesPerSend, final double[][] latencyNs,
                  final double[] achievedRates, final Histogram histogram, final String threads,
                  final String jlbhLog) {
        if (latencyNs.length != achievedRates.length) {
            throw new IllegalArgumentException(latencyNs.length + " runs of percentiles but " + achievedRates.length
                    + " rates");
        }
        this.variant = variant;
        this.description = description;
        this.rate = rate;
        this.iterations = iterations;
        this.warmUpIterations = warmUpIterations;
        this.messagesPerSend = messagesPerSend;
        this.latencyNs = latencyNs;
        this.achievedRates = achievedRates;
        this.histogram = histogram;
        this.threads = threads;
        this.jlbhLog = jlbhLog;
    }

    /**
     * Picks the table's rows out of what JLBH computed for a run, {@code Histogram.percentilesFor(iterations)}:
     * JLBH gives 99.7 only past 10,000 samples, 99.9 past 100,000, 99.97 past 300,000, 99.99 past 1,000,000.
     *
     * @param jlbhPercentiles the fractions JLBH computed for the run's sample count.
     * @param jlbhValuesNs    JLBH's values for them, ns.
     * @return one value per {@link #PERCENTILES} row, NaN where JLBH computed none.
     */
    static double[] rows(final double[] jlbhPercentiles, final double[] jlbhValuesNs) {
        if (jlbhPercentiles.length != jlbhValuesNs.length) {
            throw new IllegalArgumentException("JLBH gave " + jlbhValuesNs.length + " percentile values for "
                    + jlbhPercentiles.length + " percentiles " + Arrays.toString(jlbhPercentiles));
        }
        final double[] rows = new double[PERCENTILES.length];
        Arrays.fill(rows, Double.NaN);
        for (int row = 0; row < PERCENTILES.length; row++) {
            for (int i = 0; i < jlbhPercentiles.length; i++) {
                if (Math.abs(jlbhPercentiles[i] - PERCENTILES[row]) < 1e-9) {
                    rows[row] = jlbhValuesNs[i];
                }
            }
        }
        return rows;
    }

    String variant() {
        return variant;
    }

    String description() {
        return description;
    }

    int runs() {
        return latencyNs.length;
    }

    /** @return JLBH iterations, i.e. samples, per run: messages, or batches for a batch variant. */
    int iterations() {
        return iterations;
    }

    /** @return JLBH iterations before the first run. */
    int warmUpIterations() {
        return warmUpIterations;
    }

    /** @return messages per iteration: 1, or the batch size of a batch variant. */
    int messagesPerSend() {
        return messagesPerSend;
    }

    /** @return messages sent per run. */
    long messagesPerRun() {
        return (long) iterations * messagesPerSend;
    }

    /** @return the rate asked for, messages per second. */
    int rate() {
        return rate;
    }

    /**
     * @param run a run, from 0.
     * @param row a {@link #PERCENTILES} row.
     * @return the latency in microseconds, NaN if JLBH computed none.
     */
    double latencyMicros(final int run, final int row) {
        return latencyNs[run][row] / 1e3;
    }

    /**
     * @param run a run, from 0.
     * @return messages per second it sent.
     */
    double achievedRate(final int run) {
        return achievedRates[run];
    }

    /**
     * @param run a run, from 0.
     * @return false if it sent more than {@link #RATE_TOLERANCE} below the rate asked for.
     */
    boolean rateHeld(final int run) {
        return rateHeld(achievedRates[run], rate);
    }

    /**
     * @param achieved messages per second sent.
     * @param asked    messages per second asked for.
     * @return false if {@code achieved} is more than {@link #RATE_TOLERANCE} below {@code asked}.
     */
    static boolean rateHeld(final double achieved, final int asked) {
        return SendRate.held(achieved, asked);
    }

    /**
     * @param row a {@link #PERCENTILES} row.
     * @return the median over every run of the row's latency in microseconds, NaN if no run has one.
     */
    double medianMicros(final int row) {
        final double[] values = new double[runs()];
        int count = 0;
        for (int run = 0; run < runs(); run++) {
            if (!Double.isNaN(latencyNs[run][row])) {
                values[count++] = latencyNs[run][row] / 1e3;
            }
        }
        if (count == 0) {
            return Double.NaN;
        }
        Arrays.sort(values, 0, count);
        return count % 2 == 1 ? values[count / 2] : (values[count / 2 - 1] + values[count / 2]) / 2;
    }

    /** @return every measured sample of every run, ns. */
    Histogram histogram() {
        return histogram;
    }

    /** @return the names of the worker JVM's threads at the end of the last run. */
    String threads() {
        return threads;
    }

    /** @return what JLBH itself printed: its per-run results and its own summary. */
    String jlbhLog() {
        return jlbhLog;
    }

    /**
     * @param file where to write this result as properties.
     */
    void write(final Path file) {
        final Properties properties = new Properties();
        properties.setProperty("variant", variant);
        properties.setProperty("description", description);
        properties.setProperty("rate", Integer.toString(rate));
        properties.setProperty("iterations", Integer.toString(iterations));
        properties.setProperty("warmUpIterations", Integer.toString(warmUpIterations));
        properties.setProperty("messagesPerSend", Integer.toString(messagesPerSend));
        properties.setProperty("runs", Integer.toString(runs()));
        for (int run = 0; run < runs(); run++) {
            final List<String> values = new ArrayList<>();
            for (final double value : latencyNs[run]) {
                values.add(Double.toString(value));
            }
            properties.setProperty("run." + run + ".latencyNs", String.join(",", values));
            properties.setProperty("run." + run + ".achievedRate", Double.toString(achievedRates[run]));
        }
        final ByteBuffer buffer = ByteBuffer.allocate(histogram.getNeededByteBufferCapacity());
        final int length = histogram.encodeIntoCompressedByteBuffer(buffer);
        properties.setProperty("histogram", Base64.getEncoder().encodeToString(Arrays.copyOf(buffer.array(), length)));
        properties.setProperty("threads", threads);
        properties.setProperty("jlbhLog", jlbhLog);
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            properties.store(out, "JLBH result of one variant, written by " + JlbhMain.class.getName());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * @param file a file {@link #write(Path)} wrote.
     * @return the result in it.
     */
    static VariantResult read(final Path file) {
        final Properties properties = new Properties();
        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + ": " + e.getMessage(), e);
        }
        final int runs = Integer.parseInt(required(properties, "runs", file));
        final double[][] latencyNs = new double[runs][];
        final double[] achievedRates = new double[runs];
        for (int run = 0; run < runs; run++) {
            final String[] values = required(properties, "run." + run + ".latencyNs", file).split(",");
            latencyNs[run] = new double[values.length];
            for (int i = 0; i < values.length; i++) {
                latencyNs[run][i] = Double.parseDouble(values[i]);
            }
            achievedRates[run] = Double.parseDouble(required(properties, "run." + run + ".achievedRate", file));
        }
        final Histogram histogram;
        try {
            histogram = Histogram.decodeFromCompressedByteBuffer(
                    ByteBuffer.wrap(Base64.getDecoder().decode(required(properties, "histogram", file))), 0);
        } catch (DataFormatException e) {
            throw new IllegalStateException("bad histogram in " + file + ": " + e.getMessage(), e);
        }
        return new VariantResult(required(properties, "variant", file), required(properties, "description", file),
                Integer.parseInt(required(properties, "rate", file)),
                Integer.parseInt(required(properties, "iterations", file)),
                Integer.parseInt(required(properties, "warmUpIterations", file)),
                Integer.parseInt(required(properties, "messagesPerSend", file)),
                latencyNs, achievedRates, histogram, required(properties, "threads", file),
                required(properties, "jlbhLog", file));
    }

    private static String required(final Properties properties, final String key, final Path file) {
        final String value = properties.getProperty(key);
        if (value == null) {
            throw new IllegalStateException("no '" + key + "' in " + file);
        }
        return value;
    }

    /**
     * @param rate messages per second.
     * @return the rate with thousands separators.
     */
    static String formatRate(final double rate) {
        return SendRate.format(rate);
    }
}
