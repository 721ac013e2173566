package dev.spool.benchmarks.latency.variants;

import dev.spool.benchmarks.support.JvmFlags;
import dev.spool.benchmarks.support.Payloads;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A second process that writes to the disk beside a measurement: a child JVM that appends messages of a length at a
 * rate to a Spool queue in a directory, until its parent closes the child's standard input (or dies, which closes
 * it too). It paces itself by the millisecond: it appends what it owes, then parks for
 * {@value #PERIOD_MS} ms, so it takes a few percent of a CPU and spins on none. What it does to a process that
 * writes nothing is the disk's write-back: the kernel writing its dirty pages back, and the journal's commits.
 * <p>
 * The parent side ({@link #start}, {@link #close}) and the child's {@link #main(String[])} are in this one class,
 * the child started with the JVM flags every benchmark JVM gets and this JVM's class path.
 */
public final class DiskWriterProcess implements AutoCloseable {
    /** What the child prints once its first message is appended: from then on it writes. */
    static final String WRITING = "disk-writer: writing";
    /** How long the child parks between its bursts of appends. */
    static final int PERIOD_MS = 1;
    /** How long {@link #close()} waits for the child to close its queue and exit. */
    private static final long EXIT_TIMEOUT_SECONDS = 30;

    private final Process process;
    private final Path directory;

    private DiskWriterProcess(final Process process, final Path directory) {
        this.process = process;
        this.directory = directory;
    }

    /**
     * Starts the child JVM and returns once it has appended its first message.
     *
     * @param directory the queue's directory, created by the child.
     * @param length    bytes per message, as the measured variants send.
     * @param rate      messages per second, as the measured variants send.
     * @return the running child; {@link #close()} stops it.
     * @throws IllegalStateException if the child cannot start or exits before it writes.
     */
    static DiskWriterProcess start(final Path directory, final int length, final int rate) {
        final List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JvmFlags.load().forkFlags(Runtime.version().feature()));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(DiskWriterProcess.class.getName());
        command.add(directory.toString());
        command.add(Integer.toString(length));
        command.add(Integer.toString(rate));
        final Process process;
        try {
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the disk writer's JVM " + command.get(0) + ": "
                    + e.getMessage(), e);
        }
        final DiskWriterProcess writer = new DiskWriterProcess(process, directory);
        final String line;
        try {
            line = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
        } catch (IOException e) {
            process.destroyForcibly();
            throw new UncheckedIOException("lost the disk writer writing to " + directory + ": " + e.getMessage(), e);
        }
        if (!WRITING.equals(line)) {
            process.destroyForcibly();
            throw new IllegalStateException("the disk writer writing to " + directory + " did not start: it printed "
                    + (line == null ? "nothing" : "'" + line + "'") + "; its error output is above");
        }
        return writer;
    }

    /**
     * Stops the child: closes its standard input and waits for it to close its queue and exit.
     *
     * @throws IllegalStateException if it does not exit in time or exits with an error.
     */
    @Override
    public void close() {
        try {
            process.getOutputStream().close();
            if (!process.waitFor(EXIT_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("the disk writer writing to " + directory + " did not stop within "
                        + EXIT_TIMEOUT_SECONDS + " s; killed it");
            }
        } catch (IOException e) {
            process.destroyForcibly();
            throw new UncheckedIOException("cannot stop the disk writer writing to " + directory + ": "
                    + e.getMessage(), e);
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the disk writer writing to " + directory, e);
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException("the disk writer writing to " + directory + " exited with status "
                    + process.exitValue() + "; its error output is above");
        }
    }

    /**
     * The child: appends to a queue at a rate until its standard input ends.
     *
     * @param args the queue's directory, bytes per message, messages per second.
     */
    public static void main(final String[] args) {
        if (args.length != 3) {
            System.err.println("usage: DiskWriterProcess <directory> <length> <rate>; got " + List.of(args));
            System.exit(2);
        }
        final Path directory = Paths.get(args[0]);
        final int length = Integer.parseInt(args[1]);
        final double messagesPerNano = Integer.parseInt(args[2]) / 1e9;
        final Thread parent = new Thread(DiskWriterProcess::awaitEndOfInput, "disk-writer-parent");
        parent.setDaemon(true);
        parent.start();
        final byte[] message = Payloads.create(length);
        try (SpoolQueue queue = Payloads.spoolQueue(directory).create();
             ExcerptAppender appender = queue.createAppender()) {
            final long start = System.nanoTime();
            appender.append(message);
            long written = 1;
            System.out.println(WRITING);
            System.out.flush();
            while (parent.isAlive()) {
                final long owed = (long) ((System.nanoTime() - start) * messagesPerNano);
                for (; written < owed; written++) {
                    appender.append(message);
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(PERIOD_MS));
            }
        }
        System.exit(0);
    }

    /** Returns when the parent closes this process's standard input, or dies. */
    private static void awaitEndOfInput() {
        try {
            while (System.in.read() >= 0) {
                // the parent sends nothing: only the end of the stream means something
            }
        } catch (IOException e) {
            System.err.println("disk-writer: standard input failed, stopping: " + e.getMessage());
        }
    }
}
