package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.latency.variants.LatencyVariants;
import dev.spool.benchmarks.support.VariantNames;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class LatencyExperimentTest {
    @Test
    void everyExperimentShouldRunKnownVariantsTheFloorFirst() {
        for (final LatencyExperiment experiment : LatencyExperiment.ALL) {
            assertTrue(experiment.variants().get(0).startsWith(VariantNames.FLOOR), experiment.name() + ": the floor runs first");
            assertTrue(LatencyVariants.names().containsAll(experiment.variants()), experiment.name());
        }
    }
}
