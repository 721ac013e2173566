package dev.spool.benchmarks.report;

import java.math.BigDecimal;
import java.math.MathContext;
import java.util.Locale;

/** How the tables print numbers: as precise as a reader needs, with thousands separated. */
final class Numbers {
    private Numbers() {
    }

    /**
     * @param value a latency or a time per operation, NaN if there is none.
     * @return two decimals below 10, one below 100, none above; "-" for NaN.
     */
    static String measure(final double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        if (value < 10) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        return value < 100 ? String.format(Locale.ROOT, "%.1f", value) : String.format(Locale.ROOT, "%,.0f", value);
    }

    /**
     * @param ratio one median over another, NaN if either is missing.
     * @return two decimals from 0.1 up, two significant digits below (a sync policy's ratio can be 0.0012) down to
     * 0.0001, none from 100 up; "-" for NaN.
     */
    static String ratio(final double ratio) {
        if (Double.isNaN(ratio) || Double.isInfinite(ratio)) {
            return "-";
        }
        if (ratio >= 100) {
            return String.format(Locale.ROOT, "%,.0f", ratio);
        }
        if (ratio >= 0.1 || ratio == 0) {
            return String.format(Locale.ROOT, "%.2f", ratio);
        }
        return ratio < 0.0001 ? "< 0.0001" : new BigDecimal(ratio).round(new MathContext(2)).toPlainString();
    }
}
