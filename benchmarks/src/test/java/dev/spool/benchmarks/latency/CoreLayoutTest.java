package dev.spool.benchmarks.latency;

import org.junit.jupiter.api.Test;

import dev.spool.benchmarks.latency.variants.LatencyVariants;
import dev.spool.benchmarks.support.VariantNames;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/** {@code jlbh --pin} and {@code --cores}: the layouts a machine can give, and the refusal of those it cannot. */
class CoreLayoutTest {
    private static final CoreLayout.Cpus EIGHT = new CoreLayout.Cpus(8, CoreLayout.Cpus.parseList("0-7"));
    private static final CoreLayout.Cpus TWO = new CoreLayout.Cpus(2, CoreLayout.Cpus.parseList("0-1"));

    @Test
    void shouldRefuseToPinOnThisMachineWhenItHasFewerThanFourCpus() {
        final CoreLayout.Cpus machine = CoreLayout.Cpus.ofThisJvm();
        assumeTrue(machine.allowed().cardinality() < CoreLayout.CPUS_NEEDED, "this machine can pin: " + machine);
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final String[] options = {"E1-32B-50K", "--pin", "--smoke", "--variant", "floor,ring-read"};
        final int status = JlbhLauncher.run(options, options, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        final String message = err.toString(StandardCharsets.UTF_8);
        assertEquals(2, status, message + out.toString(StandardCharsets.UTF_8));
        assertTrue(message.contains("--pin needs 4 CPUs"), message);
        assertTrue(message.contains("this machine has " + machine.available() + " (Runtime.availableProcessors())"),
                message);
        assertTrue(message.contains("the JVM may run on " + machine.allowed().cardinality() + " (CPUs "), message);
        assertEquals("", out.toString(StandardCharsets.UTF_8), "no worker started");
    }

    @Test
    void shouldRunAVariantWithTheSenderAndTheReaderPinnedToTheirCpus() throws InterruptedException {
        assumeTrue(CoreLayout.Cpus.ofThisJvm().allowed().cardinality() >= 2, "pinning two threads needs 2 CPUs");
        // a layout the launcher refuses on 2 CPUs, but the worker pins as told; the floor has no drainer to pin
        final CoreLayout cores = new CoreLayout(1, 0, 1);
        final VariantResult[] result = new VariantResult[1];
        final Throwable[] failure = new Throwable[1];
        // the sender pins the thread it runs on: not this one, which runs the other tests
        final Thread sender = new Thread(() -> {
            try {
                result[0] = new JlbhRun("E1-32B-50K", LatencyVariants.create(VariantNames.FLOOR), 32, 50_000, 1,
                        5_000, 5_000, cores, new PrintStream(OutputStream.nullOutputStream())).run();
            } catch (InterruptedException | RuntimeException e) {
                failure[0] = e;
            }
        }, "pinned-sender");
        sender.start();
        sender.join();
        assertNull(failure[0], () -> "the pinned run failed: " + failure[0]);
        assertEquals(5_000, result[0].histogram().getTotalCount(), "every message of the run sampled");
    }

    @Test
    void shouldPinToTheThreeHighestCpusLeavingTheLowestToTheRest() {
        assertEquals(new CoreLayout(5, 6, 7), CoreLayout.choose(EIGHT));
        final CoreLayout.Cpus cpuset = new CoreLayout.Cpus(16, CoreLayout.Cpus.parseList("2,4-5,9,12"));
        assertEquals(new CoreLayout(5, 9, 12), CoreLayout.choose(cpuset));
    }

    @Test
    void shouldPinToTheCpusTheKernelIsolatedWhereItIsolatedThree() {
        final CoreLayout.Cpus isolcpus = new CoreLayout.Cpus(2, CoreLayout.Cpus.parseList("0-1,5-7"),
                CoreLayout.Cpus.parseList("2-4"));
        assertEquals(new CoreLayout(2, 3, 4), CoreLayout.choose(isolcpus));
        assertEquals(new CoreLayout(2, 3, 4), CoreLayout.parse("2,3,4").check(isolcpus));
        final CoreLayout.Cpus smallIsolcpus = new CoreLayout.Cpus(1, CoreLayout.Cpus.parseList("0"),
                CoreLayout.Cpus.parseList("1-3"));
        assertEquals(new CoreLayout(1, 2, 3), CoreLayout.choose(smallIsolcpus));
        final CoreLayout.Cpus twoIsolated = new CoreLayout.Cpus(1, CoreLayout.Cpus.parseList("0"),
                CoreLayout.Cpus.parseList("1-2"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CoreLayout.choose(twoIsolated)).getMessage()
                .endsWith("the JVM may run on 1 (CPUs 0), isolated CPUs 1-2. Run it on a machine with 4 or more"));
    }

    @Test
    void shouldRefuseToPinWithFewerThanFourCpusNamingThem() {
        final IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> CoreLayout.choose(TWO));
        assertEquals("--pin needs 4 CPUs: one each for the sender, the reader and the drainer, and one for everything"
                + " else (the kernel, the JIT compiler, the garbage collector); this machine has 2"
                + " (Runtime.availableProcessors()) and the JVM may run on 2 (CPUs 0-1). Run it on a machine with 4 or"
                + " more", refused.getMessage());
        final CoreLayout.Cpus narrowed = new CoreLayout.Cpus(8, CoreLayout.Cpus.parseList("1,3,6"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CoreLayout.choose(narrowed)).getMessage()
                .endsWith("this machine has 8 (Runtime.availableProcessors()) and the JVM may run on 3 (CPUs 1,3,6)."
                        + " Run it on a machine with 4 or more"));
    }

    @Test
    void shouldRefuseCoresTheJvmMayNotRunOnOrThatLeaveNoneForTheRest() {
        assertEquals(new CoreLayout(1, 2, 3), CoreLayout.parse("1,2,3").check(EIGHT));
        assertEquals("--cores 1,2,3: CPU 2 is not one this JVM may run on; this machine has 2"
                        + " (Runtime.availableProcessors()) and the JVM may run on 2 (CPUs 0-1)",
                assertThrows(IllegalArgumentException.class, () -> CoreLayout.parse("1,2,3").check(TWO)).getMessage());
        final CoreLayout.Cpus three = new CoreLayout.Cpus(3, CoreLayout.Cpus.parseList("0-2"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CoreLayout.parse("0,1,2").check(three))
                .getMessage().startsWith("--cores 0,1,2 leaves no CPU for everything else"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> CoreLayout.parse("1,2,0").check(EIGHT))
                .getMessage().startsWith("--cores 1,2,0: the drainer cannot have CPU 0"));
    }

    @Test
    void shouldRefuseCoresThatAreNotThreeDistinctCpuNumbers() {
        for (final String cores : new String[]{"1,2", "1,2,3,4", "1,x,3", "1,-2,3", "1,2,1"}) {
            assertThrows(IllegalArgumentException.class, () -> CoreLayout.parse(cores), cores);
        }
    }

    @Test
    void shouldReadLinuxCpuListsAndReserveTheDrainersCpuForAffinityLock() {
        final BitSet expected = new BitSet();
        expected.set(0, 4);
        expected.set(8);
        expected.set(10, 12);
        assertEquals(expected, CoreLayout.Cpus.parseList("0-3,8,10-11"));
        assertEquals("-Daffinity.reserved=80", new CoreLayout(5, 6, 7).reservedAffinity());
        assertEquals("-Daffinity.reserved=10000000000000000", new CoreLayout(1, 2, 64).reservedAffinity());
    }
}
