package example;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import net.openhft.chronicle.bytes.Bytes;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalTime;
import java.time.ZoneId;

/**
 * A queue that rolls at 17:00 New York, with index times: appends three orders, then replays from the time of the
 * second. Fails unless it replays exactly the last two; prints what it read and "OK" otherwise.
 */
public final class TradingDay {
    private TradingDay() {
    }

    /**
     * Runs the recipe.
     *
     * @param args the directory to create the queue in (a new one inside it for every run); a temporary directory
     *             if none is given.
     * @throws Exception if the queue cannot be written or read.
     */
    public static void main(final String[] args) throws Exception {
        final Path parent = args.length > 0 ? Files.createDirectories(Path.of(args[0])) : null;
        final Path directory = parent == null ? Files.createTempDirectory("trading-day-")
                : Files.createTempDirectory(parent, "trading-day-");
        try (SpoolQueue queue = SpoolQueue.builder(directory)
                .rollTime(LocalTime.of(17, 0), ZoneId.of("America/New_York"))
                .indexTimes(true)
                .indexSpacing(1)
                .create();
             ExcerptAppender appender = queue.createAppender();
             ExcerptTailer tailer = queue.createTailer()) {
            appender.append("buy 100 ACME".getBytes(StandardCharsets.UTF_8));
            Thread.sleep(5);
            final Instant second = Instant.now();
            appender.append("sell 50 ACME".getBytes(StandardCharsets.UTF_8));
            appender.append("buy 10 INIT".getBytes(StandardCharsets.UTF_8));

            tailer.moveToTime(second);
            final Bytes<?> into = Bytes.allocateElasticOnHeap();
            int read = 0;
            while (tailer.read(into) >= 0) {
                System.out.println("read " + into);
                into.clear();
                read++;
            }
            // an index entry per excerpt: the replay starts right after the last one known to be appended before
            if (read != 2) {
                throw new IllegalStateException("expected to replay the last 2 orders, read " + read);
            }
            System.out.println("OK: " + queue.cycles().length + " cycle file(s) in " + directory);
        }
    }
}
