package dev.spool.benchmarks.startup;

import dev.spool.benchmarks.support.Payloads;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import net.openhft.chronicle.queue.ChronicleQueue;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;

/**
 * One sample, in a fresh JVM: {@code spool|chronicle <new queue directory>}. Reads the clock before any class of the
 * queue under test loads, opens a new queue with the settings the other benchmarks use, appends 32 bytes, and prints
 * {@code STARTUP <system> <open-to-append us> <JVM start-to-append ms>}.
 */
public final class StartupProbe {
    /** What a probe prints first on its result line. */
    static final String PREFIX = "STARTUP";

    private StartupProbe() {
    }

    /**
     * @param args {@code spool} or {@code chronicle}, then the directory of a queue that does not exist yet.
     */
    public static void main(final String[] args) {
        final long start = System.nanoTime();
        final Path directory = Path.of(args[1]);
        switch (args[0]) {
            case "spool" -> spool(directory);
            case "chronicle" -> chronicle(directory);
            default -> throw new IllegalArgumentException("system=" + args[0] + " is neither spool nor chronicle");
        }
        final long appended = System.nanoTime();
        final long uptimeMillis = ManagementFactory.getRuntimeMXBean().getUptime();
        System.out.println(PREFIX + " " + args[0] + " " + (appended - start) / 1_000 + " " + uptimeMillis);
    }

    private static void spool(final Path directory) {
        try (SpoolQueue queue = Payloads.spoolQueue(directory).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            appender.append(new byte[32]);
        }
    }

    private static void chronicle(final Path directory) {
        try (ChronicleQueue queue = Payloads.chronicleQueue(directory).build();
             net.openhft.chronicle.queue.ExcerptAppender appender = queue.createAppender()) {
            appender.writeBytes(net.openhft.chronicle.bytes.Bytes.wrapForRead(new byte[32]));
        }
    }
}
