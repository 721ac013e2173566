package dev.spool.importer;

import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;

import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM that appends {@code args[1]} documents of random lengths to a Chronicle Queue that rolls every second
 * of the real clock, one about every 200 µs, printing {@code wrote N} every 1,000 and {@code done} at the end.
 */
public final class ChronicleWriterMain {
    private ChronicleWriterMain() {
    }

    public static void main(final String[] args) {
        final int count = Integer.parseInt(args[1]);
        final SplittableRandom random = new SplittableRandom(Long.parseLong(args[2]));
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.binary(Path.of(args[0]))
                .rollCycle(TestRollCycles.TEST_SECONDLY).build();
             ExcerptAppender appender = queue.createAppender()) {
            for (int i = 1; i <= count; i++) {
                ChronicleQueues.append(appender, random.nextInt(3_000), random.nextLong());
                if (i % 1_000 == 0) {
                    System.out.println("wrote " + i);
                    System.out.flush();
                }
                LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(200));
            }
        }
        System.out.println("done");
    }
}
