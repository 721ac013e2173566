package dev.spool.benchmarks.cluster;

import dev.spool.benchmarks.support.JvmFlags;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The parent's handle on a {@link NodeMain} in a child JVM, with this launcher's class path and the JVM flags the
 * other benchmarks fork with: what the child last printed of its state, and its kill.
 */
final class NodeProcess {
    private final String name;
    private final Process process;
    private final Path stderr;
    private volatile String state = "STARTING";
    private volatile long term = -1;
    private volatile boolean ready;
    private volatile String failure;
    /** When the child last said it became the primary, by this JVM's clock; 0 if it never did. */
    private volatile long primarySinceNs;

    private NodeProcess(final String name, final Process process, final Path stderr) {
        this.name = name;
        this.process = process;
        this.stderr = stderr;
        final Thread reader = new Thread(this::readLines, "node-" + name + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param name   the node's name, for messages.
     * @param stderr the file the child's standard error (its log) is appended to.
     * @param args   the arguments of {@link NodeMain}.
     * @return the started child.
     * @throws IOException if it cannot start.
     */
    static NodeProcess start(final String name, final Path stderr, final List<String> args) throws IOException {
        final List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JvmFlags.load().forkFlags(Runtime.version().feature()));
        command.add("-Xmx256m");
        command.add("-Dorg.slf4j.simpleLogger.showDateTime=true");
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(NodeMain.class.getName());
        command.addAll(args);
        final Process process = new ProcessBuilder(command)
                .redirectError(ProcessBuilder.Redirect.appendTo(stderr.toFile())).start();
        return new NodeProcess(name, process, stderr);
    }

    private void readLines() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                final String[] words = line.split(" ");
                if (words[0].equals(NodeMain.NODE) && words.length == 4) {
                    if (words[2].equals("PRIMARY") && !"PRIMARY".equals(state)) {
                        primarySinceNs = System.nanoTime();
                    }
                    term = Long.parseLong(words[3]);
                    state = words[2];
                } else if (words[0].equals(NodeMain.READY)) {
                    ready = true;
                } else if (words[0].equals(NodeMain.FAILED)) {
                    failure = line.substring(NodeMain.FAILED.length()).trim();
                }
            }
        } catch (IOException e) {
            failure = "its output could not be read: " + e;
        }
    }

    /** @return the node's name. */
    String name() {
        return name;
    }

    /** @return its state as it last printed it ({@code FOLLOWER}, {@code PRIMARY}...), or {@code STARTING}. */
    String state() {
        return process.isAlive() ? state : "DEAD";
    }

    /** @return the term it last printed. */
    long term() {
        return term;
    }

    /** @return when it last became the primary, by {@link System#nanoTime()}; 0 if never. */
    long primarySinceNs() {
        return primarySinceNs;
    }

    /**
     * Waits until the child prints {@code READY} or the state given.
     *
     * @param wanted  the state, or null for {@code READY}.
     * @param timeout how long at most.
     * @throws IllegalStateException naming the node and the end of its log, if it failed, exited or took longer.
     */
    void await(final String wanted, final long timeout, final TimeUnit unit) {
        final long deadline = System.nanoTime() + unit.toNanos(timeout);
        while (wanted == null ? !ready : !wanted.equals(state)) {
            if (failure != null || !process.isAlive() || System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("node " + name + " did not become " + (wanted == null ? "ready"
                        : wanted) + " within " + timeout + " " + unit.toString().toLowerCase(java.util.Locale.ROOT)
                        + (failure != null ? ": " + failure : "") + (process.isAlive() ? "" : "; it exited with "
                        + process.exitValue()) + "; its log ends:\n" + logTail());
            }
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** kill -9: no shutdown hook, no finally block, its ZooKeeper session left to expire. */
    void kill() {
        process.destroyForcibly();
        awaitExit();
    }

    /** Asks the node to stop (it closes cleanly), and kills it if it has not within 15 s. */
    void stop() {
        if (!process.isAlive()) {
            return;
        }
        try {
            final OutputStream in = process.getOutputStream();
            in.write("stop\n".getBytes(StandardCharsets.UTF_8));
            in.close();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                kill();
            }
        } catch (IOException e) {
            kill();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            kill();
        }
    }

    private void awaitExit() {
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("node " + name + " (pid " + process.pid() + ") survived SIGKILL for"
                        + " 30 s");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return the last lines of the node's log, for a failure's message. */
    String logTail() {
        try {
            final String text = Files.readString(stderr);
            return text.substring(Math.max(0, text.length() - 4000));
        } catch (IOException e) {
            return "(" + stderr + " unreadable: " + e + ")";
        }
    }
}
