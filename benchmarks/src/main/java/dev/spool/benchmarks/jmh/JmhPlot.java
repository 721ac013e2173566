package dev.spool.benchmarks.jmh;

import dev.spool.benchmarks.support.VariantNames;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;
import org.openjdk.jmh.results.RunResult;

import javax.imageio.ImageIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The plot of a JMH run (E4): one group of bars per operation and payload length, one bar per implementation
 * (floor, Spool, Chronicle Queue), nanoseconds per operation on a log scale, so that the same operation on each
 * stands side by side. Which JMH method is which operation on which implementation is {@link #OPERATIONS}; a
 * benchmark not in it is left out of the plot (it is still in the text and JSON results).
 */
public final class JmhPlot {
    /**
     * {@code Class.method} to the operation it measures and the implementation it runs on, for the plot and for the
     * tables of docs/benchmarks.md.
     */
    public static final Map<String, String[]> OPERATIONS = Map.ofEntries(
            Map.entry("FloorBenchmark.append", new String[]{"append", VariantNames.FLOOR}),
            Map.entry("SpoolBenchmark.append", new String[]{"append", VariantNames.SPOOL}),
            Map.entry("ChronicleBenchmark.writeBytes", new String[]{"append", VariantNames.CHRONICLE}),
            Map.entry("SpoolBenchmark.claimCommit", new String[]{"claim/commit", VariantNames.SPOOL}),
            Map.entry("ChronicleBenchmark.writingDocument", new String[]{"claim/commit", VariantNames.CHRONICLE}),
            Map.entry("FloorBenchmark.read", new String[]{"read", VariantNames.FLOOR}),
            Map.entry("SpoolBenchmark.read", new String[]{"read", VariantNames.SPOOL}),
            Map.entry("ChronicleBenchmark.readingDocument", new String[]{"read", VariantNames.CHRONICLE}),
            Map.entry("SpoolBenchmark.readBytes", new String[]{"read into Bytes", VariantNames.SPOOL}),
            Map.entry("ChronicleBenchmark.readBytes", new String[]{"read into Bytes", VariantNames.CHRONICLE}),
            Map.entry("SpoolBenchmark.moveToIndex", new String[]{"moveToIndex", VariantNames.SPOOL}),
            Map.entry("ChronicleBenchmark.moveToIndex", new String[]{"moveToIndex", VariantNames.CHRONICLE}),
            Map.entry("RingBenchmark.claimCommit", new String[]{"ring claim/commit", VariantNames.SPOOL}),
            Map.entry("RingBenchmark.drain", new String[]{"ring drain, a record", VariantNames.SPOOL}),
            Map.entry("RingBenchmark.asyncAppend", new String[]{"async append", VariantNames.SPOOL}),
            Map.entry("ReplicationBenchmark.appendAndAwaitAck", new String[]{"append, replica's ack", VariantNames.SPOOL}));
    /** The order of the groups of bars (and of a table's rows), then by payload length. */
    public static final List<String> ORDER = List.of("append", "claim/commit", "read", "read into Bytes", "moveToIndex",
            "ring claim/commit", "ring drain, a record", "async append", "append, replica's ack");
    private static final List<String> SERIES = List.of(VariantNames.FLOOR, VariantNames.SPOOL, VariantNames.CHRONICLE);
    private static final int WIDTH = 1200;
    private static final int HEIGHT = 600;

    private JmhPlot() {
    }

    /**
     * @param file    the PNG to write.
     * @param title   the chart's title.
     * @param results JMH's results.
     * @return false if no result is one of {@link #OPERATIONS}, and then no file is written.
     */
    static boolean write(final Path file, final String title, final Collection<RunResult> results) {
        final Map<String, Map<String, Double>> scores = new LinkedHashMap<>();
        for (final RunResult result : results) {
            final String benchmark = result.getParams().getBenchmark();
            final String[] operation = OPERATIONS.get(shortName(benchmark));
            if (operation == null) {
                continue;
            }
            final String length = result.getParams().getParam("payloadLength");
            final String category = operation[0] + (length != null ? " " + length + " B" : "");
            scores.computeIfAbsent(category, key -> new LinkedHashMap<>())
                    .put(operation[1], result.getPrimaryResult().getScore());
        }
        if (scores.isEmpty()) {
            return false;
        }
        // no display on a build machine; set before the first AWT class loads
        System.setProperty("java.awt.headless", "true");
        final CategoryChart chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle("operation, payload").yAxisTitle("ns per operation (log scale), lower is better").build();
        chart.getStyler().setYAxisLogarithmic(true);
        // bars start at 0 unless told, and a log axis has no 0
        chart.getStyler().setYAxisMin(1.0);
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setYAxisDecimalPattern("#,##0");
        chart.getStyler().setXAxisLabelRotation(20);
        final List<String> categories = new ArrayList<>(scores.keySet());
        categories.sort(Comparator.comparingInt(JmhPlot::order).thenComparingInt(JmhPlot::length));
        for (final String series : SERIES) {
            final List<Double> values = new ArrayList<>();
            boolean any = false;
            for (final String category : categories) {
                final Double score = scores.get(category).get(series);
                // a missing bar: XChart leaves a gap for null
                values.add(score);
                any |= score != null;
            }
            if (any) {
                chart.addSeries(series, categories, values);
            }
        }
        try {
            if (!ImageIO.write(BitmapEncoder.getBufferedImage(chart), "png", file.toFile())) {
                throw new IllegalStateException("no PNG writer in this JVM for the plot " + file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the plot " + file, e);
        }
        return true;
    }

    private static int order(final String category) {
        for (int i = ORDER.size() - 1; i >= 0; i--) {
            if (category.startsWith(ORDER.get(i))) {
                return i;
            }
        }
        return ORDER.size();
    }

    private static int length(final String category) {
        final String[] words = category.split(" ");
        return words.length >= 2 && words[words.length - 1].equals("B") ? Integer.parseInt(words[words.length - 2]) : 0;
    }

    /** @return {@code Class.method} of a fully qualified benchmark name. */
    static String shortName(final String benchmark) {
        final int method = benchmark.lastIndexOf('.');
        final int type = benchmark.lastIndexOf('.', method - 1);
        return benchmark.substring(type + 1);
    }
}
