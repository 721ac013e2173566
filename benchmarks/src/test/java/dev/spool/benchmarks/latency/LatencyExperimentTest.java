package dev.spool.benchmarks.latency;

import dev.spool.benchmarks.latency.variants.LatencyVariants;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertTrue;

class LatencyExperimentTest {
    @Test
    void everyExperimentShouldRunKnownVariantsTheFloorFirst() {
        for (final LatencyExperiment experiment : LatencyExperiment.ALL) {
            assertTrue(experiment.variants().get(0).startsWith(LatencyTables.FLOOR), experiment.name() + ": the floor runs first");
            assertTrue(LatencyVariants.names().containsAll(experiment.variants()), experiment.name());
        }
    }
}
