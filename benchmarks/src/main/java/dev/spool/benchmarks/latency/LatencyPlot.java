package dev.spool.benchmarks.latency;

import org.HdrHistogram.Histogram;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.Styler;
import org.knowm.xchart.style.markers.SeriesMarkers;

import javax.imageio.ImageIO;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The plot of a JLBH experiment: latency (microseconds, log scale) by percentile, one line per variant, from
 * every measured sample of every run. The x axis counts nines, {@code log10(1 / (1 - p))}: 1 is p90, 2 is p99,
 * 3 is p99.9, so the tail gets as much room as the median.
 */
final class LatencyPlot {
    private static final int WIDTH = 1000;
    private static final int HEIGHT = 600;
    /** Points per nine: enough for a smooth line, few enough for a small file. */
    private static final int POINTS_PER_NINE = 40;
    /** The log axis needs a positive value; a sample of 0 ns is drawn here. */
    private static final double SMALLEST_MICROS = 0.001;

    private LatencyPlot() {
    }

    /**
     * @param file    the PNG to write.
     * @param title   the chart's title.
     * @param results the variants, each a line.
     */
    static void write(final Path file, final String title, final List<VariantResult> results) {
        // no display on a build machine; set before the first AWT class loads
        System.setProperty("java.awt.headless", "true");
        final XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
                .xAxisTitle("percentile (axis: number of nines, log10(1 / (1 - p)))")
                .yAxisTitle("end-to-end latency, microseconds (log scale)")
                .build();
        chart.getStyler().setYAxisLogarithmic(true);
        chart.getStyler().setYAxisDecimalPattern("#,##0.###");
        chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
        chart.getStyler().setXAxisMin(0.0);
        chart.getStyler().setXAxisTickLabelsFormattingFunction(LatencyPlot::percentileLabel);
        double maxNines = 1;
        for (final VariantResult result : results) {
            final Histogram histogram = result.histogram();
            if (histogram.getTotalCount() == 0) {
                continue;
            }
            final double nines = Math.log10(histogram.getTotalCount());
            maxNines = Math.max(maxNines, nines);
            final List<Double> x = new ArrayList<>();
            final List<Double> y = new ArrayList<>();
            final int points = (int) Math.ceil(nines * POINTS_PER_NINE);
            for (int point = 0; point <= points; point++) {
                final double at = Math.min(nines, point / (double) POINTS_PER_NINE);
                x.add(at);
                y.add(micros(histogram.getValueAtPercentile(100 * (1 - Math.pow(10, -at)))));
            }
            // the worst sample, at the last percentile the sample count can tell apart
            x.add(nines);
            y.add(micros(histogram.getMaxValue()));
            final XYSeries series = chart.addSeries(result.variant(), x, y);
            series.setMarker(SeriesMarkers.NONE);
        }
        chart.getStyler().setXAxisMax(Math.ceil(maxNines));
        try {
            // the image, then the JDK's encoder: XChart 4 deprecates its own one-call PNG writers
            if (!ImageIO.write(BitmapEncoder.getBufferedImage(chart), "png", file.toFile())) {
                throw new IllegalStateException("this JDK has no PNG writer for " + file);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    private static double micros(final long nanos) {
        return Math.max(SMALLEST_MICROS, nanos / 1e3);
    }

    /**
     * @param nines a position on the x axis.
     * @return the percentile there if it is a whole number of nines ({@code 0}, {@code 90}, {@code 99.9}), else
     * the percentile to as many decimals as the next whole number of nines has.
     */
    static String percentileLabel(final double nines) {
        final double percentile = 100 * (1 - Math.pow(10, -nines));
        final long whole = Math.round(nines);
        if (Math.abs(nines - whole) < 1e-6) {
            if (whole <= 0) {
                return "0";
            }
            if (whole <= 2) {
                return whole == 1 ? "90" : "99";
            }
            return "99." + "9".repeat((int) whole - 2);
        }
        final int decimals = Math.max(0, (int) Math.ceil(nines) - 2);
        return String.format(Locale.ROOT, "%." + decimals + "f", percentile);
    }
}
