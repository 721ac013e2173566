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
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The fault loop's steady streams: each on its own thread publishes unique messages one at a time at
 * {@link CommitStage#ACKED_BY_QUORUM} through its own client (its own id) that follows the primary ZooKeeper names
 * (it reconnects after a failover and sends again, with its sequence, the message whose commit did not come), and
 * records each one the client was told was committed, with its index. Several streams at once make a primary's
 * unacknowledged tail differ from what its successor writes at the same indices. A message whose commit never came
 * within the client's timeout is in doubt; the stream's next client (a new id) never sends it again. Each payload
 * must appear once: the new primary recognises a re-send by the client's id and sequence.
 * <p>
 * A payload is {@code message <n> } and filler to a length of 16 to 200 bytes: its number makes it unique.
 */
final class FaultPublisher implements AutoCloseable {
    /** Longer than a failover: a stopped ZooKeeper server, a session expiry and an election. */
    private static final Duration CLIENT_TIMEOUT = Duration.ofSeconds(30);
    private final ZooKeeperView zooKeeper;
    private final Thread[] threads;
    /** Per stream: true while it is paused between messages. */
    private final AtomicIntegerArray idle;
    /** The next message's number, unique across the streams. */
    private final AtomicLong numbers = new AtomicLong();
    /** Guarded by itself: by index, each payload whose commit at ACKED_BY_QUORUM the client was told. */
    private final TreeMap<Long, byte[]> committed = new TreeMap<>();
    private volatile boolean stop;
    private volatile boolean pause;
    /** Guarded by {@link #committed}: System.nanoTime() of each acknowledged commit, in order. */
    private long[] commitTimes = new long[1024];
    /** Guarded by {@link #committed}: System.nanoTime() of the publish of each acknowledged commit, in order. */
    private long[] publishTimes = new long[1024];
    private final AtomicLong sent = new AtomicLong();
    private final AtomicLong inDoubt = new AtomicLong();
    private volatile String failure;

    /**
     * @param seed       the seed of the streams' payloads.
     * @param publishers how many streams, each with its own client, publish at once.
     */
    FaultPublisher(final ZooKeeperView zooKeeper, final long seed, final int publishers) {
        this.zooKeeper = zooKeeper;
        this.threads = new Thread[publishers];
        this.idle = new AtomicIntegerArray(publishers);
        for (int i = 0; i < publishers; i++) {
            final int stream = i;
            final Random random = new Random(seed + i);
            threads[i] = new Thread(() -> run(stream, random), "fault-publisher-" + i);
            threads[i].setDaemon(true);
            threads[i].start();
        }
    }

    private void run(final int stream, final Random random) {
        PublishClient client = null;
        while (!stop) {
            if (pause) {
                idle.set(stream, 1);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
                continue;
            }
            idle.set(stream, 0);
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
            final byte[] payload = payload(numbers.getAndIncrement(), random);
            sent.incrementAndGet();
            if (!publish(client, payload)) {
                inDoubt.incrementAndGet();
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

    private static byte[] payload(final long number, final Random random) {
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
            // the streams' commits come in any order of their publishes: the earliest acknowledgement of any
            long first = 0;
            for (int i = committed.size() - 1; i >= 0; i--) {
                if (publishTimes[i] - afterNs > 0 && (first == 0 || commitTimes[i] - first < 0)) {
                    first = commitTimes[i];
                }
            }
            return first;
        }
    }

    long sent() {
        return sent.get();
    }

    long inDoubt() {
        return inDoubt.get();
    }

    /** @return what went wrong on the client's side, or null. */
    String failure() {
        return failure;
    }

    /**
     * Stops publishing after the messages in flight, and returns once every stream is idle.
     *
     * @return false if a message in flight was still neither committed nor in doubt after 60 s.
     */
    boolean pause() {
        pause = true;
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (int i = 0; i < threads.length; i++) {
            while (idle.get(i) == 0 && threads[i].isAlive()) {
                if (System.nanoTime() - deadline > 0) {
                    return false;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(1));
            }
        }
        return true;
    }

    void resume() {
        for (int i = 0; i < threads.length; i++) {
            idle.set(i, 0);
        }
        pause = false;
    }

    @Override
    public void close() throws InterruptedException {
        stop = true;
        for (final Thread thread : threads) {
            thread.join();
        }
    }
}
