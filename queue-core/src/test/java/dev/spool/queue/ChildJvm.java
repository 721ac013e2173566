package dev.spool.queue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A real child JVM running a test main class with the same class path and JVM flags: for locks, crashes and
 * cross-process visibility. Its stdout lines can be awaited; {@link #kill()} is SIGKILL.
 */
public final class ChildJvm implements AutoCloseable {
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final String name;
    private final Path stderr;
    private volatile boolean ended;

    private ChildJvm(final String name, final Process process, final Path stderr) {
        this.name = name;
        this.stderr = stderr;
        this.process = process;
        final Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                String line;
                while ((line = in.readLine()) != null) {
                    lines.add(line);
                }
            } catch (IOException e) {
                lines.add("EOF " + e);
            } finally {
                ended = true;
            }
        }, name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * Starts {@code main} in a child JVM with the test JVM's class path and the JVM flags Chronicle needs.
     *
     * @param main   the child's main class.
     * @param stderr the file the child's stderr is appended to.
     * @param args   the child's arguments.
     * @return the running child.
     * @throws IOException if it cannot start.
     */
    public static ChildJvm start(final Class<?> main, final Path stderr, final String... args) throws IOException {
        return start(true, main, stderr, args);
    }

    /**
     * Starts a child with extra JVM options, such as a small {@code -XX:MaxDirectMemorySize} for a test of bounded
     * memory.
     */
    public static ChildJvm startWithOptions(final Class<?> main, final Path stderr, final List<String> options,
                                            final String... args) throws IOException {
        return start(true, main, stderr, options, args);
    }

    /** Starts a child without the JVM flags Chronicle needs, as a user's application might. */
    public static ChildJvm startWithoutFlags(final Class<?> main, final Path stderr, final String... args) throws IOException {
        return start(false, main, stderr, args);
    }

    /**
     * Starts {@code main} in a child JVM behind a command prefix, e.g. {@code setpriv} to run as another user or
     * {@code unshare} to see a read-only mount, with the JVM flags Chronicle needs.
     *
     * @param prefix    the command the java command line is appended to.
     * @param classPath the child's class path (another user may need copies it can read).
     * @param main      the child's main class.
     * @param stderr    the file the child's stderr is appended to.
     * @param args      the child's arguments.
     * @return the running child.
     * @throws IOException if it cannot start.
     */
    public static ChildJvm startWrapped(final List<String> prefix, final String classPath, final Class<?> main,
                                        final Path stderr, final String... args) throws IOException {
        return start(prefix, classPath, true, main, stderr, List.of(), args);
    }

    private static ChildJvm start(final boolean withFlags, final Class<?> main, final Path stderr, final String... args)
            throws IOException {
        return start(List.of(), System.getProperty("java.class.path"), withFlags, main, stderr, List.of(), args);
    }

    private static ChildJvm start(final boolean withFlags, final Class<?> main, final Path stderr,
                                  final List<String> options, final String... args) throws IOException {
        return start(List.of(), System.getProperty("java.class.path"), withFlags, main, stderr, options, args);
    }

    private static ChildJvm start(final List<String> prefix, final String classPath, final boolean withFlags,
                                  final Class<?> main, final Path stderr, final List<String> options,
                                  final String... args) throws IOException {
        final List<String> command = new ArrayList<>(prefix);
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        final String flags = System.getProperty("spool.test.jvmFlags");
        if (!withFlags) {
            command.add("-Dspool.test.noFlags=true");
        } else if (flags != null && !flags.isBlank()) {
            command.addAll(Arrays.asList(flags.trim().split("\\s+")));
        } else {
            command.addAll(JvmFlags.required());
        }
        command.add("-Xmx256m");
        command.addAll(options);
        // a crash report goes beside the child's stderr, in the test's directory, not into the working tree
        command.add("-XX:ErrorFile=" + stderr.toAbsolutePath().resolveSibling("hs_err_pid%p.log"));
        command.add("-cp");
        command.add(classPath);
        command.add(main.getName());
        command.addAll(Arrays.asList(args));
        final Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile()))
                .start();
        return new ChildJvm(main.getSimpleName() + "-" + process.pid(), process, stderr);
    }

    /** @return the first line starting with {@code prefix}, skipping others; fails after the timeout. */
    public String awaitLine(final String prefix, final long timeout, final TimeUnit unit) throws InterruptedException {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            final long left = deadline - System.nanoTime();
            final String line = lines.poll(Math.max(0, left), TimeUnit.NANOSECONDS);
            if (line == null) {
                throw new AssertionError(name + " printed no line starting with '" + prefix + "' within " + timeout + " " + unit
                        + (process.isAlive() ? "" : "; it exited with " + process.exitValue()) + "; stderr ends: " + stderrTail());
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    /**
     * @return the next line the child prints, or null once it has exited and every line it printed was returned;
     * fails after the timeout.
     */
    public String nextLine(final long timeout, final TimeUnit unit) throws InterruptedException {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (true) {
            final boolean lastLook = ended;
            final String line = lines.poll(10, TimeUnit.MILLISECONDS);
            if (line != null) {
                return line;
            }
            if (lastLook) {
                return null;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError(name + " printed nothing for " + timeout + " " + unit + "; stderr ends: " + stderrTail());
            }
        }
    }

    /** @return the end of the child's standard error, for failure messages. */
    public String stderrTail() {
        return tail(stderr, 3000);
    }

    /** @return the last {@code length} characters of a child's stderr file, for a failure message. */
    public static String tail(final Path stderr, final int length) {
        try {
            final String text = Files.readString(stderr);
            return text.substring(Math.max(0, text.length() - length));
        } catch (IOException e) {
            return "(unreadable: " + e + ")";
        }
    }

    /** Writes a line to the child's stdin. */
    public void send(final String line) throws IOException {
        final OutputStream in = process.getOutputStream();
        in.write((line + "\n").getBytes(StandardCharsets.UTF_8));
        in.flush();
    }

    /** SIGKILL: no shutdown hooks, no finally blocks, mapped memory left as it was. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new AssertionError(name + " survived SIGKILL for 30 s");
        }
    }

    /**
     * SIGSTOP: the process stops where it is, its sockets and files open, as in a long GC pause or a VM freeze;
     * returns once every thread of it is stopped.
     */
    public void freeze() throws IOException, InterruptedException {
        signal("-STOP");
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!stopped()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError(name + " still runs 30 s after SIGSTOP");
            }
            Thread.sleep(1);
        }
    }

    /** @return true if every thread of the process is in the stopped state ('T' in its /proc stat). */
    private boolean stopped() throws IOException {
        try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(process.pid()), "task"))) {
            for (final Path task : (Iterable<Path>) tasks::iterator) {
                final String stat = Files.readString(task.resolve("stat"));
                // the state follows the command name, which is in parentheses and may hold spaces
                final char state = stat.charAt(stat.lastIndexOf(')') + 2);
                if (state != 'T' && state != 't') {
                    return false;
                }
            }
            return true;
        } catch (NoSuchFileException e) {
            // a thread that ended while listed
            return false;
        }
    }

    /** SIGCONT: a frozen process goes on where it stopped. */
    public void thaw() throws IOException, InterruptedException {
        signal("-CONT");
    }

    private void signal(final String signal) throws IOException, InterruptedException {
        final Process kill = new ProcessBuilder("kill", signal, Long.toString(process.pid())).inheritIO().start();
        if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
            throw new AssertionError("kill " + signal + " " + process.pid() + " failed (" + name + ")");
        }
    }

    public int awaitExit(final long timeout, final TimeUnit unit) throws InterruptedException {
        if (!process.waitFor(timeout, unit)) {
            throw new AssertionError(name + " did not exit within " + timeout + " " + unit);
        }
        return process.exitValue();
    }

    public long pid() {
        return process.pid();
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
