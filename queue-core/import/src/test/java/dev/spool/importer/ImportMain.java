package dev.spool.importer;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * A child JVM that imports a Chronicle Queue into a Spool queue, slowly enough to be killed in the middle: after
 * {@code args[2]} documents it prints {@code started}, then waits about 20 µs before each write. Then prints the report.
 */
public final class ImportMain {
    private ImportMain() {
    }

    public static void main(final String[] args) {
        final long announceAfter = Long.parseLong(args[2]);
        final AtomicLong documents = new AtomicLong();
        final ImportReport report = ChronicleImport.from(Path.of(args[0])).into(Path.of(args[1]))
                .epochClock(() -> {
                    final long read = documents.incrementAndGet();
                    if (read == announceAfter) {
                        System.out.println("started");
                        System.out.flush();
                    } else if (read > announceAfter) {
                        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(20));
                    }
                    return System.currentTimeMillis();
                })
                .run();
        System.out.println("done " + report.excerptsWritten());
    }
}
