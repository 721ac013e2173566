package dev.spool.failover;

import dev.spool.queue.SpoolException;
import dev.spool.replication.CommitStage;
import dev.spool.replication.PublishClient;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The fault loop's steady stream: on its own thread, publishes unique messages one at a time at
 * {@link CommitStage#ACKED_BY_QUORUM} through one client that follows the primary ZooKeeper names (it reconnects
 * after a failover and sends again, with its sequence, the message whose commit did not come), and records each one
 * the client was told was committed, with its index. A message whose commit never came within the client's timeout
 * is in doubt; the next client (a new id) never sends it again. Each payload must appear once: the new primary
 * recognises a re-send by the client's id and sequence.
 * <p>
 * A payload is {@code message <n> } and filler to a length of 16 to 200 bytes: its number makes it unique.
 */
final class FaultPublisher implements AutoCloseable {
    /** Longer than a failover: a stopped ZooKeeper server, a session expiry and an election. */
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);
    private final ZooKeeperView zooKeeper;
    private final Random random;
    private final Thread thread;
    /** Guarded by itself: by index, each payload whose commit at ACKED_BY_QUORUM the client was told. */
    private final TreeMap<Long, byte[]> committed = new TreeMap<>();
    private volatile boolean stop;
    private volatile boolean pause;
    private volatile boolean idle;
    /** Guarded by {@link #committed}: System.nanoTime() of each acknowledged commit, in order. */
    private long[] commitTimes = new long[1024];
    /** Guarded by {@link #committed}: System.nanoTime() of the publish of each acknowledged commit, in order. */
    private long[] publishTimes = new long[1024];
    private volatile long sent;
    private volatile long inDoubt;
    private volatile String failure;

    FaultPublisher(final ZooKeeperView zooKeeper, final long seed) {
        this.zooKeeper = zooKeeper;
        this.random = new Random(seed);
        this.thread = new Thread(this::run, "fault-publisher");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        PublishClient client = null;
        long number = 0;
        while (!stop) {
            if (pause) {
                idle = true;
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                continue;
            }
            idle = false;
            if (client == null) {
                try {
                    client = PublishClient.builder(this::gateway, 1024).sharedSecret(FaultNodeMain.SECRET)
                            .timeout(CLIENT_TIMEOUT).connect();
                } catch (UncheckedIOException | SpoolException e) {
                    // no primary serving within the timeout
                    LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
                    continue;
                }
            }
            final byte[] payload = payload(number++);
            sent++;
            if (!publish(client, payload)) {
                inDoubt++;
                client.close();
                client = null;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        if (client != null) {
            client.close();
        }
    }

    /** @return false if the commit is in doubt: it did not come within the client's timeout, through failovers. */
    private boolean publish(final PublishClient client, final byte[] payload) {
        try {
            final long publishedNs = System.nanoTime();
            final long sequence = client.publish(payload, 0, payload.length, CommitStage.ACKED_BY_QUORUM);
            final long index = client.awaitCommit(sequence, CLIENT_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
            if (index >= 0) {
                record(index, payload, publishedNs);
                return true;
            }
            return false;
        } catch (UncheckedIOException | SpoolException e) {
            return false;
        }
    }

    /** The client's locator: the gateway of the primary ZooKeeper names now. */
    private InetSocketAddress gateway() throws IOException {
        final ZooKeeperView.Primary primary = primaryOrNull();
        if (primary == null) {
            throw new IOException("no primary in ZooKeeper now");
        }
        return primary.gateway();
    }

    private void record(final long index, final byte[] payload, final long publishedNs) {
        synchronized (committed) {
            final byte[] before = committed.put(index, payload);
            if (before != null && failure == null) {
                failure = "index 0x" + Long.toHexString(index) + " was acknowledged for two messages: '"
                        + text(before) + "' and '" + text(payload) + "'";
            }
            final int count = committed.size();
            if (count > commitTimes.length) {
                commitTimes = Arrays.copyOf(commitTimes, commitTimes.length * 2);
                publishTimes = Arrays.copyOf(publishTimes, publishTimes.length * 2);
            }
            commitTimes[count - 1] = System.nanoTime();
            publishTimes[count - 1] = publishedNs;
        }
    }

    private ZooKeeperView.Primary primaryOrNull() {
        try {
            return zooKeeper.primary();
        } catch (Exception e) {
            // a ZooKeeper server stopped on purpose: the view reconnects to another
            return null;
        }
    }

    private byte[] payload(final long number) {
        final byte[] head = ("message " + number + " ").getBytes(StandardCharsets.US_ASCII);
        final byte[] payload = Arrays.copyOf(head, Math.max(head.length, 16 + random.nextInt(185)));
        for (int i = head.length; i < payload.length; i++) {
            payload[i] = (byte) ('a' + random.nextInt(26));
        }
        return payload;
    }

    /** @return the number in a payload, which makes it unique. */
    static long numberOf(final byte[] payload) {
        final String text = text(payload);
        return Long.parseLong(text.substring("message ".length(), text.indexOf(' ', "message ".length())));
    }

    static String text(final byte[] payload) {
        return new String(payload, StandardCharsets.US_ASCII);
    }

    /** @return a copy of every acknowledged commit so far, by index. */
    TreeMap<Long, byte[]> committed() {
        synchronized (committed) {
            return new TreeMap<>(committed);
        }
    }

    /** @return how many commits were acknowledged so far. */
    int commits() {
        synchronized (committed) {
            return committed.size();
        }
    }

    /**
     * @param afterNs a System.nanoTime().
     * @return System.nanoTime() of the acknowledgement of the first commit published after {@code afterNs} (a
     * message in flight at that moment may have been acknowledged by the state before), or 0 if none was yet.
     */
    long firstCommitAfter(final long afterNs) {
        synchronized (committed) {
            for (int i = committed.size() - 1; i >= 0 && publishTimes[i] - afterNs > 0; i--) {
                if (i == 0 || publishTimes[i - 1] - afterNs <= 0) {
                    return commitTimes[i];
                }
            }
            return 0;
        }
    }

    long sent() {
        return sent;
    }

    long inDoubt() {
        return inDoubt;
    }

    /** @return what went wrong on the client's side, or null. */
    String failure() {
        return failure;
    }

    /**
     * Stops publishing after the message in flight, and returns once the stream is idle.
     *
     * @return false if the message in flight was still neither committed nor in doubt after 60 s.
     */
    boolean pause() {
        pause = true;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!idle && thread.isAlive()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
        }
        return true;
    }

    void resume() {
        idle = false;
        pause = false;
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join();
    }
}
