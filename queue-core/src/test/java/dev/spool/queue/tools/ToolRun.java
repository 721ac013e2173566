package dev.spool.queue.tools;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** One run of the CLI in this JVM: its exit status and what it printed on each stream. */
record ToolRun(int status, String out, String err) {
    /** Runs {@code spool} with {@code args}, capturing both streams. */
    static ToolRun of(final String... args) {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int status;
        try (PrintStream outStream = new PrintStream(out, true, StandardCharsets.UTF_8);
             PrintStream errStream = new PrintStream(err, true, StandardCharsets.UTF_8)) {
            status = SpoolTool.run(args, outStream, errStream);
        }
        return new ToolRun(status, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }
}
