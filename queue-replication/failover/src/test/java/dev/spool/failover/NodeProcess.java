package dev.spool.failover;

import dev.spool.queue.ChildJvm;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * One node of the fault loop in its child JVM ({@link FaultNodeMain}): a thread reads its {@code STATE} lines as they
 * come and hands each PRIMARY one to the loop's record of who was primary in which term.
 */
final class NodeProcess implements AutoCloseable {
    private final String nodeId;
    private final ChildJvm child;
    private final Path stderr;
    private volatile String state = "STARTING";
    private volatile long term = -1;

    private NodeProcess(final String nodeId, final ChildJvm child, final Path stderr,
            final BiConsumer<String, Long> primaries) {
        this.nodeId = nodeId;
        this.child = child;
        this.stderr = stderr;
        final Thread reader = new Thread(() -> read(primaries), "node-" + nodeId + "-stdout");
        reader.setDaemon(true);
        reader.start();
    }

    /**
     * @param nodeId    the node's id.
     * @param stderr    the file its standard error is appended to.
     * @param primaries told (node id, term) for each {@code STATE PRIMARY} line.
     * @param args      {@link FaultNodeMain}'s arguments.
     * @return the started child; its node may still be connecting.
     */
    static NodeProcess start(final String nodeId, final Path stderr, final BiConsumer<String, Long> primaries,
            final List<String> args) throws IOException {
        return new NodeProcess(nodeId, ChildJvm.start(FaultNodeMain.class, stderr, args.toArray(new String[0])),
                stderr, primaries);
    }

    private void read(final BiConsumer<String, Long> primaries) {
        try {
            String line;
            while ((line = child.nextLine(1, TimeUnit.HOURS)) != null) {
                if (line.startsWith("STATE ")) {
                    final String[] fields = line.split(" ");
                    final long lineTerm = Long.parseLong(fields[2].substring("term=".length()));
                    term = lineTerm;
                    state = fields[1];
                    if ("PRIMARY".equals(fields[1])) {
                        primaries.accept(nodeId, lineTerm);
                    }
                }
            }
            state = "EXITED";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    String nodeId() {
        return nodeId;
    }

    /** @return the state the node last printed, STARTING before its first, EXITED once its output ended. */
    String state() {
        return state;
    }

    /** @return the term the node last printed. */
    long term() {
        return term;
    }

    /** @return the end of what the node's JVMs wrote to standard error, for a failure's message. */
    String stderrTail(final int length) {
        return ChildJvm.tail(stderr, length);
    }

    /** kill -9. */
    void kill() throws InterruptedException {
        child.kill();
    }

    /** SIGSTOP: the node stops where it is, its sockets and its ZooKeeper session open, as in a long pause. */
    void freeze() throws IOException, InterruptedException {
        child.freeze();
    }

    /** SIGCONT. */
    void thaw() throws IOException, InterruptedException {
        child.thaw();
    }

    @Override
    public void close() throws InterruptedException {
        child.close();
    }
}
