package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.support.VariantNames;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class JlbhArgumentsTest {
    @Test
    void shouldRunEveryExperimentAndVariantAtFullLengthByDefault() {
        final JlbhArguments arguments = JlbhArguments.parse(new String[0]);
        assertEquals(JlbhArguments.Mode.FULL, arguments.mode());
        final List<JlbhArguments.Plan> plans = arguments.plans();
        for (final JlbhArguments.Plan plan : plans) {
            assertEquals(plan.experiment().variants(), plan.variants());
            assertTrue(plan.variants().get(0).startsWith(VariantNames.FLOOR), "the floor runs first");
        }
        assertEquals(List.of("E1-32B-50K", "E1-32B-250K", "E1-140B-100K", "E2-40B-166667", "E2-40B-1M", "E2-40B-1666667",
                "E3-256B-200K", "E3-1024B-50K", "E3-1024B-200K", "E3b-1024B-50K"),
                plans.stream().map(JlbhArguments.Plan::name).toList());
        assertEquals(8, plans.get(0).runs());
        assertEquals(10_000_000, plans.get(0).iterations(), "200 s at 50K msg/s");
        assertEquals(25_000_000, plans.get(1).iterations(), "100 s at 250K msg/s");
        assertEquals(4, plans.get(2).runs());
        assertEquals(3_000_000, plans.get(2).iterations(), "the article's 3M messages");
        assertEquals(2_500_000, plans.get(1).warmUpIterations(), "10 s worth of messages");
    }

    @Test
    void shouldShortenRunsInShortAndSmokeModes() {
        final List<JlbhArguments.Plan> plans = JlbhArguments.parse(new String[]{"E1", "--short"}).plans();
        assertEquals(3, plans.size());
        for (final JlbhArguments.Plan plan : plans) {
            assertEquals(3, plan.runs());
            assertEquals(4.0, plan.runSeconds(), 1e-9);
            assertEquals("-short", plan.mode().suffix());
        }
        final JlbhArguments.Plan smoke = JlbhArguments.parse(new String[]{"e1-32b-250k", "--smoke"}).plans().get(0);
        assertEquals(2, smoke.runs());
        assertEquals(62_500, smoke.iterations());
        assertEquals(25_000, smoke.warmUpIterations());
    }

    @Test
    void shouldApplyOverridesToEveryExperimentAndRunTheSameOneOnce() {
        final JlbhArguments arguments = JlbhArguments.parse(new String[]{"all", "E1-32B-50K", "--rate", "100000",
                "--size", "64", "--runs", "2", "--seconds", "1.5", "--warmup", "0.5", "--variant", "chronicle,floor",
                "--dir", "/dev/shm", "--results", "/tmp/r"});
        final List<JlbhArguments.Plan> plans = arguments.plans();
        assertEquals(List.of("E1-64B-100K"), plans.stream().map(JlbhArguments.Plan::name).toList());
        assertEquals(2, plans.get(0).runs());
        assertEquals(150_000, plans.get(0).iterations());
        assertEquals(50_000, plans.get(0).warmUpIterations());
        assertEquals(List.of("floor", "chronicle"), plans.get(0).variants(), "running order, not the order given");
        assertEquals(Path.of("/dev/shm"), arguments.benchDirectory);
        assertEquals(Path.of("/tmp/r"), arguments.resultsDirectory);
    }

    @Test
    void shouldRefuseWhatItCannotRun() {
        assertMessage("unknown experiment 'E9'", "E9");
        assertMessage("unknown variant 'turbo'", "--variant", "spool,turbo");
        assertMessage("--size must be at least 8", "--size", "4");
        assertMessage("--short and --full exclude each other", "--short", "--full");
        assertMessage("--rate needs a value", "--rate");
        assertMessage("--seconds must be a positive number", "--seconds", "0");
        assertMessage("more than JLBH can count", "--rate", "2000000000", "--seconds", "10");
        assertMessage("unknown option '--fast'", "--fast");
    }

    @Test
    void shouldNameRatesAsTheArticlesDo() {
        assertEquals("250K", LatencyExperiment.rateLabel(250_000));
        assertEquals("1.5M", LatencyExperiment.rateLabel(1_500_000));
        assertEquals("1M", LatencyExperiment.rateLabel(1_000_000));
        assertEquals("166667", LatencyExperiment.rateLabel(166_667));
    }

    private static void assertMessage(final String expected, final String... args) {
        final IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> JlbhArguments.parse(args));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
    }
}
