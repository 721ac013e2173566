package dev.spool.benchmarks.support;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The one rule by which the demo and the JLBH experiments mark a sender that did not hold its rate. */
class SendRateTest {
    @Test
    void shouldHoldTheRateWithinFivePercentBelowAndAnyAmountAbove() {
        assertTrue(SendRate.held(100_000, 100_000));
        assertTrue(SendRate.held(95_000, 100_000));
        assertTrue(SendRate.held(180_000, 100_000));
        assertFalse(SendRate.held(94_999, 100_000));
        assertFalse(SendRate.held(0, 100_000));
    }

    @Test
    void shouldFormatARateRoundedWithThousandsSeparators() {
        assertEquals("1,234,568", SendRate.format(1_234_567.6));
    }
}
