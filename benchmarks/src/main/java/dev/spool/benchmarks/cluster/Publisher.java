package dev.spool.benchmarks.cluster;

import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.replication.CommitStage;
import dev.spool.replication.PublishClient;

import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A client's steady stream of messages at ACKED_BY_QUORUM, one at a time at a rate, on a thread of its own. It
 * publishes to whichever gateway of the cluster answers: when its primary is lost (the connection fails, or no commit
 * comes in time) it tries each member's gateway in turn until one takes a connection, which only the primary's does.
 * It records every message whose commit was acknowledged (its sequence, and the index the commit named) so that a
 * queue can be checked for all of them, and when the first acknowledgement after a primary's kill came from another
 * gateway: the failover time, from the client's side.
 */
final class Publisher implements AutoCloseable {
    /** Every message's length: a sequence number, then bytes derived from it. */
    static final int MESSAGE_LENGTH = 64;
    private static final Duration CONNECT_TIMEOUT = Duration.ofMillis(200);

    private final List<InetSocketAddress> gateways;
    private final byte[] secret;
    private final long intervalNs;
    private final long commitTimeoutNs;
    private final Thread thread;
    private volatile boolean running = true;
    private long[] sequences = new long[1 << 14];
    private long[] indices = new long[1 << 14];
    private int acknowledged;
    /** The gateway of the primary killed last, while its failover is not over; -1 otherwise. */
    private int killedGateway = -1;
    private long killNs;
    private long firstAckNs;
    private long unacknowledged;

    /**
     * Starts publishing.
     *
     * @param gateways      every member's gateway, in the members' order.
     * @param secret        the gateways' shared secret.
     * @param rate          messages a second, at most: one waits for its commit before the next is sent.
     * @param commitTimeout how long a commit may take before the publisher looks for another primary.
     */
    Publisher(final List<InetSocketAddress> gateways, final byte[] secret, final int rate, final Duration commitTimeout) {
        this.gateways = List.copyOf(gateways);
        this.secret = secret.clone();
        this.intervalNs = TimeUnit.SECONDS.toNanos(1) / rate;
        this.commitTimeoutNs = commitTimeout.toNanos();
        this.thread = new Thread(this::publish, "cluster-publisher");
        thread.setDaemon(true);
        thread.start();
    }

    private void publish() {
        final byte[] message = new byte[MESSAGE_LENGTH];
        PublishClient client = null;
        int gateway = -1;
        long sequence = 0;
        long next = System.nanoTime();
        while (running) {
            if (client == null) {
                for (int tried = 0; tried < gateways.size() && client == null; tried++) {
                    gateway = (gateway + 1) % gateways.size();
                    client = connect(gateways.get(gateway));
                }
                if (client == null) {
                    LockSupport.parkNanos(2_000_000);
                    continue;
                }
            }
            final long wait = next - System.nanoTime();
            if (wait > 0) {
                LockSupport.parkNanos(wait);
            }
            next = Math.max(next + intervalNs, System.nanoTime() - intervalNs);
            fill(message, sequence);
            long index;
            try {
                final long correlation = client.publish(message, 0, MESSAGE_LENGTH, CommitStage.ACKED_BY_QUORUM);
                index = client.awaitCommit(correlation, commitTimeoutNs, TimeUnit.NANOSECONDS);
            } catch (UncheckedIOException | SpoolException e) {
                index = -1;
            }
            if (index < 0) {
                // lost or silent: the message's fate is unknown to the client, and it is not counted
                synchronized (this) {
                    unacknowledged++;
                }
                client.close();
                client = null;
            } else {
                record(sequence, index, gateway);
            }
            sequence++;
        }
        if (client != null) {
            client.close();
        }
    }

    private PublishClient connect(final InetSocketAddress gateway) {
        try {
            return PublishClient.builder(gateway, MESSAGE_LENGTH).sharedSecret(secret).timeout(CONNECT_TIMEOUT)
                    .connect();
        } catch (UncheckedIOException | SpoolException e) {
            // no gateway there: that member is not the primary, or not alive
            return null;
        }
    }

    private synchronized void record(final long sequence, final long index, final int gateway) {
        if (acknowledged == sequences.length) {
            sequences = Arrays.copyOf(sequences, acknowledged * 2);
            indices = Arrays.copyOf(indices, acknowledged * 2);
        }
        sequences[acknowledged] = sequence;
        indices[acknowledged] = index;
        acknowledged++;
        if (killedGateway >= 0 && gateway != killedGateway && firstAckNs == 0) {
            firstAckNs = System.nanoTime();
        }
    }

    /** @return how many messages were acknowledged at ACKED_BY_QUORUM. */
    synchronized int acknowledged() {
        return acknowledged;
    }

    /** @return the index of the last message acknowledged, or -1 before the first. */
    synchronized long lastAcknowledgedIndex() {
        return acknowledged == 0 ? -1 : indices[acknowledged - 1];
    }

    /** @return how many messages the publisher gave up on: their commits were never acknowledged to it. */
    synchronized long unacknowledged() {
        return unacknowledged;
    }

    /**
     * Marks the moment a primary is killed: from now on, the first acknowledgement from another gateway ends the
     * failover.
     *
     * @param gateway the index of the killed primary's gateway.
     * @return the moment, by {@link System#nanoTime()}.
     */
    synchronized long killing(final int gateway) {
        killedGateway = gateway;
        firstAckNs = 0;
        killNs = System.nanoTime();
        return killNs;
    }

    /**
     * Waits for the end of the failover that {@link #killing} began.
     *
     * @param timeoutNs how long at most.
     * @return the failover time: from the kill to the first commit acknowledged by another gateway, in nanoseconds;
     * -1 if none came in time.
     */
    long awaitFailover(final long timeoutNs) {
        final long deadline = System.nanoTime() + timeoutNs;
        while (System.nanoTime() - deadline < 0) {
            synchronized (this) {
                if (firstAckNs != 0) {
                    killedGateway = -1;
                    return firstAckNs - killNs;
                }
            }
            LockSupport.parkNanos(200_000);
        }
        return -1;
    }

    /**
     * Waits until {@code count} more messages are acknowledged.
     *
     * @param count     how many.
     * @param timeoutNs how long at most.
     * @return true if they were.
     */
    boolean awaitMore(final int count, final long timeoutNs) {
        final int target = acknowledged() + count;
        final long deadline = System.nanoTime() + timeoutNs;
        while (acknowledged() < target) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            LockSupport.parkNanos(1_000_000);
        }
        return true;
    }

    /**
     * Reads a queue for every message acknowledged so far: each must be at the index its commit named, with the bytes
     * that were sent.
     *
     * @param directory the queue, opened read-only (its node may be running).
     * @return how many acknowledged messages are missing or differ; 0 is the promise.
     */
    long lost(final Path directory) {
        final long[] sequenceCopy;
        final long[] indexCopy;
        synchronized (this) {
            sequenceCopy = Arrays.copyOf(sequences, acknowledged);
            indexCopy = Arrays.copyOf(indices, acknowledged);
        }
        final byte[] expected = new byte[MESSAGE_LENGTH];
        final boolean[] same = new boolean[1];
        final ExcerptHandler compare = (bytes, offset, length, index) -> {
            boolean equal = length == MESSAGE_LENGTH;
            for (int i = 0; equal && i < MESSAGE_LENGTH; i++) {
                equal = bytes.readByte(offset + i) == expected[i];
            }
            same[0] = equal;
        };
        long lost = 0;
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open();
             ExcerptTailer tailer = queue.createTailer()) {
            for (int i = 0; i < indexCopy.length; i++) {
                fill(expected, sequenceCopy[i]);
                same[0] = false;
                if (!tailer.moveToIndex(indexCopy[i]) || !tailer.read(compare) || !same[0]) {
                    lost++;
                }
            }
        }
        return lost;
    }

    /** The message of a sequence number: the number, little-endian, then bytes that depend on it. */
    static void fill(final byte[] message, final long sequence) {
        for (int i = 0; i < Long.BYTES; i++) {
            message[i] = (byte) (sequence >>> (8 * i));
        }
        for (int i = Long.BYTES; i < message.length; i++) {
            message[i] = (byte) (sequence * 31 + i);
        }
    }

    /** Stops publishing and waits for the thread; stopping again does nothing. */
    @Override
    public void close() {
        stop();
    }

    /** Stops publishing and waits for the thread, so that what was acknowledged is final. */
    void stop() {
        running = false;
        try {
            thread.join(TimeUnit.NANOSECONDS.toMillis(commitTimeoutNs) + 5_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
