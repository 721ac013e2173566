package example.cli;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Writes three fills into a queue, then reads it with the CLI as an operator would from a shell:
 * {@code spool tail <queue>}, {@code spool dump <queue> --from <index> --limit 1} and {@code spool verify <queue>},
 * each a {@code java -jar spool-cli.jar} process. Prints every command and its output, and fails, saying what is
 * missing, unless each prints the fills by name and exits 0; prints "OK" otherwise.
 */
public final class CliReader {
    private CliReader() {
    }

    /**
     * Runs the recipe.
     *
     * @param args the directory to create the queue in (a new one inside it for every run), and the CLI's jar.
     * @throws Exception if the queue cannot be written or the CLI not run.
     */
    public static void main(final String[] args) throws Exception {
        final Path directory = Files.createTempDirectory(Files.createDirectories(Path.of(args[0])), "fills-");
        final Path cli = Path.of(args[1]);

        final long[] indices = new long[3];
        final String[] calls = {
            "FillEvents.fill(orderId=1, quantity=100, price=101.25)",
            "FillEvents.fill(orderId=1, quantity=50, price=101.5)",
            "FillEvents.fill(orderId=2, quantity=2000, price=7.5)",
        };
        try (SpoolQueue queue = SpoolQueue.builder(directory).create();
             ExcerptAppender appender = queue.createAppender()) {
            // the method writer also stores FillEvents.spool-schema in the queue's directory: the CLI reads the
            // names of the method and its parameters from it
            final FillEvents fills = appender.methodWriter(FillEvents.class);
            fills.fill(1, 100, 101.25);
            indices[0] = appender.lastIndexAppended();
            fills.fill(1, 50, 101.5);
            indices[1] = appender.lastIndexAppended();
            fills.fill(2, 2_000, 7.5);
            indices[2] = appender.lastIndexAppended();
        }

        // tail: one line per excerpt, "<index>\t<length>\t<payload>", a typed payload as the call
        final String[] tail = spool(cli, "tail", directory.toString()).split("\n");
        if (tail.length != calls.length) {
            throw new IllegalStateException("spool tail printed " + tail.length + " lines, expected " + calls.length);
        }
        for (int i = 0; i < calls.length; i++) {
            final String index = "0x" + Long.toHexString(indices[i]);
            if (!tail[i].startsWith(index + " ") || !tail[i].endsWith("\t" + calls[i])) {
                throw new IllegalStateException("spool tail printed \"" + tail[i] + "\", expected index " + index
                        + " and " + calls[i]);
            }
        }

        // dump from the second fill, one excerpt: its position, header and index, the payload in hex, and the call
        final String dump = spool(cli, "dump", directory.toString(), "--from", "0x" + Long.toHexString(indices[1]),
                "--limit", "1");
        expect(dump, "data index=0x" + Long.toHexString(indices[1]), "dump");
        expect(dump, "typed " + calls[1], "dump");

        // verify: walks every excerpt and the index; exit 0 when nothing is damaged, 1 with the file and position
        // of any damage
        expect(spool(cli, "verify", directory.toString()), calls.length + " excerpts", "verify");
        System.out.println("OK: spool tail, dump and verify read the " + indices.length + " fills in " + directory);
    }

    /** Runs {@code java -jar <cli> <arguments>}, prints the command and its output, and returns the output. */
    private static String spool(final Path cli, final String... arguments) throws IOException, InterruptedException {
        final List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-jar", cli.toString()));
        // The CLI jar's manifest carries the JVM flags it needs, all but Java 23+'s permission for sun.misc.Unsafe,
        // which no manifest attribute grants (without it the JVM only warns); Java 17 to 22 refuse that flag.
        if (Runtime.version().feature() >= 23) {
            command.add(1, "--sun-misc-unsafe-memory-access=allow");
        }
        command.addAll(List.of(arguments));
        System.out.println("$ spool " + String.join(" ", arguments));
        // standard output is what the command prints; its errors and the JVM's warnings go to this process's
        final Process process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        final String output;
        try (InputStream in = process.getInputStream()) {
            output = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("spool " + arguments[0] + " did not finish within 30 s");
        }
        System.out.print(output);
        if (process.exitValue() != 0) {
            throw new IllegalStateException("spool " + String.join(" ", arguments) + " exited with status "
                    + process.exitValue());
        }
        return output;
    }

    private static void expect(final String output, final String text, final String command) {
        if (!output.contains(text)) {
            throw new IllegalStateException("spool " + command + " did not print " + text);
        }
    }
}
