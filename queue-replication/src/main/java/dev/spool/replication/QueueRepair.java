package dev.spool.replication;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.RepairRefusedException;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.DamagedRange;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.replication.protocol.AuthenticationException;
import dev.spool.replication.protocol.ClientHandshake;
import dev.spool.replication.protocol.Connection;
import dev.spool.replication.protocol.DataFlyweight;
import dev.spool.replication.protocol.ErrorFlyweight;
import dev.spool.replication.protocol.FetchFlyweight;
import dev.spool.replication.protocol.FrameException;
import dev.spool.replication.protocol.FrameMac;
import dev.spool.replication.protocol.Handshake;
import dev.spool.replication.protocol.PeerText;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import static dev.spool.replication.protocol.FrameDescriptor.FETCH_FRAME_LIMIT;
import static dev.spool.replication.protocol.FrameDescriptor.FETCH_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.MAX_FETCH_EXCERPTS;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_DATA;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_ERROR;
import static dev.spool.replication.protocol.FrameDescriptor.TYPE_FETCH;
import static dev.spool.replication.protocol.FrameDescriptor.typeName;

/**
 * Repairs a queue's damaged excerpts from a replica over the network: connects to the replica's sink port (the
 * address its {@link ReplicationSink} listens on, while its source may be streaming to it), proves the shared secret,
 * fetches the stored bodies of the damaged ranges and rewrites them in place as {@link SpoolQueue#repairFrom} does
 * from a local copy: each only if it passes its own CRC32C and has exactly the stored length, and nothing unless
 * every one does, through the queue's crash-safe repair journal.
 * <pre>{@code
 * long rewritten = QueueRepair.fromReplica(new InetSocketAddress("replica-1", 7001))
 *         .sharedSecret(secret)
 *         .repair(queue);
 * }</pre>
 * An operator's call: it scans every excerpt of the queue and allocates; not for a hot path. See
 * docs/operations/troubleshooting.md, "Damaged files".
 */
public final class QueueRepair {
    private static final Logger LOG = LoggerFactory.getLogger(QueueRepair.class);
    private static final int MAX_PASSES = 64;
    private static final int HANDSHAKE_CAPACITY = 4096;
    private static final long FIRST_BACKOFF_NS = TimeUnit.MILLISECONDS.toNanos(50);
    private static final long MAX_BACKOFF_NS = TimeUnit.SECONDS.toNanos(1);

    private final InetSocketAddress replica;
    private final byte[] secret;
    private final long timeoutNs;
    private final NanoClock clock;

    private QueueRepair(final InetSocketAddress replica, final byte[] secret, final Duration timeout,
                        final NanoClock clock) {
        this.replica = replica;
        this.secret = secret;
        this.timeoutNs = timeout.toNanos();
        this.clock = clock;
    }

    /**
     * @param replica the address a replica's sink listens on.
     * @return a builder of a repair from that replica: give it the replicas' shared secret, or call
     * {@link Builder#insecure()} for a sink without one.
     */
    public static Builder fromReplica(final InetSocketAddress replica) {
        return new Builder(replica);
    }

    /**
     * Repairs every damaged range a scan of {@code queue} finds (as many scans as a bad header that hid damage after
     * it takes) with the replica's bodies.
     *
     * @param queue the queue to repair, opened writable.
     * @return the number of regions rewritten (bodies and headers); 0 if nothing the checksums prove was damaged.
     * @throws RepairRefusedException naming the range and why, if a range cannot be proven right (nothing the scan
     *                                found is written then), or the replica refused to send it.
     * @throws SpoolException         if the replica did not prove the shared secret, or cannot be reached: a failed
     *                                connection is tried again with back-off until the timeout has passed, and
     *                                the exception names the replica, the attempts and the last failure.
     */
    public long repair(final SpoolQueue queue) {
        final QueueInternals internals = queue.unwrap(QueueInternals.class);
        List<DamagedRange> damaged = internals.damagedRanges(0);
        if (damaged.isEmpty()) {
            return 0;
        }
        long repaired = 0;
        List<DamagedRange> previous = null;
        for (int pass = 0; pass < MAX_PASSES && !damaged.isEmpty() && !damaged.equals(previous); pass++) {
            // a connection per pass: the scan between passes may outlast the sink's patience with a silent peer
            final Map<Long, byte[]> bodies = fetch(queue, damaged, 0, Long.MAX_VALUE);
            final long from = damaged.get(0).fromIndex();
            final long to = damaged.get(damaged.size() - 1).toIndex();
            try {
                repaired += logged(queue, from, to, internals.repairExcerpts(from, to, bodies::get));
            } catch (RepairRefusedException e) {
                if (repaired == 0) {
                    throw e;
                }
                throw new RepairRefusedException(e.fromIndex(), e.toIndex(), e.getMessage() + " (but " + repaired
                        + " regions were rewritten before, by the repair of the damage an earlier scan found,"
                        + " which hid this damage)");
            }
            previous = damaged;
            damaged = internals.damagedRanges(0);
        }
        return repaired;
    }

    /**
     * Repairs the damaged excerpts of {@code fromIndex} to {@code toIndex} with the replica's bodies.
     *
     * @param queue     the queue to repair, opened writable.
     * @param fromIndex the first index to repair.
     * @param toIndex   the last index to repair, inclusive.
     * @return the number of regions rewritten; 0 if nothing in the range was damaged.
     * @throws RepairRefusedException naming the range and why, if it cannot be proven right (nothing is written
     *                                then), or the replica refused to send it.
     * @throws SpoolException         if the replica did not prove the shared secret, or cannot be reached: a failed
     *                                connection is tried again with back-off until the timeout has passed, and
     *                                the exception names the replica, the attempts and the last failure.
     */
    public long repair(final SpoolQueue queue, final long fromIndex, final long toIndex) {
        if (fromIndex < 0 || toIndex < fromIndex) {
            throw new RepairRefusedException(fromIndex, toIndex, "repair of " + fromIndex + ".." + toIndex
                    + " refused: not a range of indices; nothing was written");
        }
        final QueueInternals internals = queue.unwrap(QueueInternals.class);
        final List<DamagedRange> damaged = internals.damagedRanges(fromIndex);
        final Map<Long, byte[]> bodies = damaged.stream().anyMatch(range -> range.toIndex() >= fromIndex
                && range.fromIndex() <= toIndex) ? fetch(queue, damaged, fromIndex, toIndex) : Map.of();
        return logged(queue, fromIndex, toIndex, internals.repairExcerpts(fromIndex, toIndex, bodies::get));
    }

    /**
     * Fetches the bodies of the damaged ranges, as far as they lie in {@code fromIndex..toIndex}, over one connection;
     * over a new one, after a back-off, if the connection fails (refused, reset, closed, silent), until the timeout has
     * passed since the first attempt. A refusal, or a replica that did not prove the secret, is not retried.
     *
     * @throws SpoolException naming the replica, the attempts and the last cause, once the timeout has passed.
     */
    private Map<Long, byte[]> fetch(final SpoolQueue queue, final List<DamagedRange> damaged, final long fromIndex,
                                    final long toIndex) {
        final long started = clock.nanoTime();
        long backoffNs = FIRST_BACKOFF_NS;
        for (int attempt = 1; ; attempt++) {
            final Map<Long, byte[]> bodies = new HashMap<>();
            try (Session session = new Session(queue, Math.max(1, started + timeoutNs - clock.nanoTime()))) {
                for (final DamagedRange range : damaged) {
                    final long from = Math.max(fromIndex, range.fromIndex());
                    final long to = Math.min(toIndex, range.toIndex());
                    if (from <= to) {
                        session.fetch(from, to, bodies);
                    }
                }
                return bodies;
            } catch (SpoolException e) {
                final long elapsedNs = clock.nanoTime() - started;
                if (!isConnectionFailure(e)) {
                    throw e;
                }
                if (elapsedNs >= timeoutNs) {
                    throw new SpoolException("cannot fetch from the replica at " + replica + " after " + attempt
                            + " attempts in " + TimeUnit.NANOSECONDS.toMillis(elapsedNs) + " ms (the timeout is "
                            + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms); the last failed with: "
                            + e.getMessage(), e);
                }
                final long pauseNs = Math.min(backoffNs, timeoutNs - elapsedNs);
                LOG.warn("repair from the replica at {}: attempt {} failed ({}); retrying in {} ms", replica, attempt,
                        e.getMessage(), TimeUnit.NANOSECONDS.toMillis(pauseNs));
                LockSupport.parkNanos(pauseNs);
                backoffNs = Math.min(2 * backoffNs, MAX_BACKOFF_NS);
            }
        }
    }

    /** @return true if the connection failed (a later one may not), not the replica's answer or its proof. */
    private static boolean isConnectionFailure(final SpoolException e) {
        return !(e instanceof RepairRefusedException) && e.getCause() instanceof IOException
                && !(e.getCause() instanceof FrameException) && !(e.getCause() instanceof AuthenticationException);
    }

    private int logged(final SpoolQueue queue, final long fromIndex, final long toIndex, final int count) {
        if (count > 0) {
            LOG.info("repaired {}..{} of {}: {} damaged regions rewritten with the verified bytes of the replica at {}",
                    IndexFormat.format(fromIndex, queue.rollCycle()), IndexFormat.format(toIndex, queue.rollCycle()),
                    queue.directory(), count, replica);
        }
        return count;
    }

    /** One authenticated connection to the replica's sink, fetching bodies; blocking, within the timeout. */
    private final class Session implements AutoCloseable {
        private final RollCycle rollCycle;
        private final UUID queueId;
        private final Connection connection;
        private final Selector selector;
        private final FetchFlyweight fetch = new FetchFlyweight();
        private final DataFlyweight data = new DataFlyweight();
        private final ErrorFlyweight error = new ErrorFlyweight();

        /** @param connectNs the longest wait for the connection and the handshake. */
        Session(final SpoolQueue queue, final long connectNs) {
            this.rollCycle = queue.rollCycle();
            this.queueId = queue.queueId();
            final long largest = DataFlyweight.largestFrameLength(FETCH_FRAME_LIMIT, queue.maxMessageLength(),
                    queue.unwrap(QueueInternals.class).features()) + FrameMac.TAG_LENGTH;
            try {
                selector = Selector.open();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot open a selector to reach the replica at " + replica, e);
            }
            connection = new Connection(clock, HANDSHAKE_CAPACITY, HANDSHAKE_CAPACITY);
            try {
                final SocketChannel channel = SocketChannel.open();
                try {
                    channel.socket().connect(replica, (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(connectNs)));
                    connection.attach(channel);
                    channel.register(selector, SelectionKey.OP_READ);
                } catch (IOException | RuntimeException e) {
                    channel.close();
                    throw e;
                }
                final long deadline = clock.nanoTime() + connectNs;
                final byte[] hello = ClientHandshake.sendHello(connection, Handshake.nonce());
                flush(deadline);
                awaitFrame(deadline, "CHALLENGE");
                throwIfError(-1, -1);
                ClientHandshake.prove(connection, secret, hello, ClientHandshake.REPAIR);
                connection.consumeFrame();
                connection.receiveCapacity((int) largest);
                flush(deadline);
            } catch (IOException e) {
                close();
                throw new SpoolException("cannot fetch from the replica at " + replica + ": " + e.getMessage(), e);
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        /** Fetches the bodies of {@code from} to {@code to}, one cycle's, into {@code bodies}, a FETCH at a time. */
        void fetch(final long from, final long to, final Map<Long, byte[]> bodies) {
            long next = from;
            try {
                while (next <= to) {
                    final long last = Math.min(to, next + MAX_FETCH_EXCERPTS - 1);
                    final int offset = connection.beginFrame(TYPE_FETCH);
                    fetch.wrap(connection.send(), offset).range(next, last).queueId(queueId);
                    connection.endFrame(offset, FETCH_LENGTH);
                    final long deadline = clock.nanoTime() + timeoutNs;
                    flush(deadline);
                    awaitFrame(deadline, "DATA");
                    throwIfError(next, last);
                    if (connection.frameType() != TYPE_DATA) {
                        throw new FrameException(typeName(connection.frameType()) + " frame from the replica at "
                                + replica + " where DATA was expected");
                    }
                    next = read(next, last, bodies);
                    connection.consumeFrame();
                }
            } catch (IOException e) {
                throw new SpoolException("cannot fetch " + range(from, to) + " from the replica at " + replica + ": "
                        + e.getMessage(), e);
            }
        }

        /** @return the index after the last body the DATA frame held. */
        private long read(final long next, final long last, final Map<Long, byte[]> bodies) throws FrameException {
            data.wrap(connection.received(), connection.frameOffset());
            data.check(connection.peer(), connection.frameLength(), next - 1);
            int entry = data.firstEntry();
            long index = -1;
            for (int i = 0; i < data.count(); i++) {
                index = data.entryIndex(entry);
                if (i == 0 && index != next || index > last) {
                    throw new FrameException("DATA frame from the replica at " + replica + " holds index "
                            + IndexFormat.format(index, rollCycle) + " in its answer to a FETCH of "
                            + range(next, last));
                }
                final byte[] body = new byte[data.entryLength(entry)];
                connection.received().get(data.entryPayload(entry), body);
                bodies.put(index, body);
                entry = data.nextEntry(entry);
            }
            return index + 1;
        }

        private void throwIfError(final long from, final long to) {
            if (connection.frameType() != TYPE_ERROR) {
                return;
            }
            error.wrap(connection.received(), connection.frameOffset());
            if (from < 0) {
                throw new SpoolException("the replica at " + replica + " answered with error " + error.code()
                        + " before it proved the shared secret; " + PeerText.said(replica, error.message(
                        connection.frameLength())));
            }
            final String message = "the replica at " + replica + " refused with error " + error.code() + ": "
                    + error.message(connection.frameLength());
            throw new RepairRefusedException(from, to, "repair of " + range(from, to) + " refused: " + message
                    + "; nothing was written");
        }

        private String range(final long from, final long to) {
            return IndexFormat.format(from, rollCycle) + ".." + IndexFormat.format(to, rollCycle);
        }

        private void flush(final long deadline) throws IOException {
            while (!connection.flush()) {
                final long left = deadline - clock.nanoTime();
                if (left <= 0) {
                    throw new IOException("the replica at " + replica + " took nothing for "
                            + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
                }
                selector.select(Connection.IGNORE_KEY, 1);
            }
        }

        private void awaitFrame(final long deadline, final String what) throws IOException {
            while (!connection.nextFrame()) {
                final long left = deadline - clock.nanoTime();
                if (left <= 0) {
                    throw new IOException("no " + what + " from the replica at " + replica + " within "
                            + TimeUnit.NANOSECONDS.toMillis(timeoutNs) + " ms");
                }
                selector.select(Connection.IGNORE_KEY, Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
                connection.receive();
            }
        }

        @Override
        public void close() {
            try {
                connection.close();
            } finally {
                try {
                    selector.close();
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot close the selector of the repair from " + replica, e);
                }
            }
        }
    }

    /** Settings of a repair from a replica: the shared secret (or {@link #insecure()}), the timeout, the clock. */
    public static final class Builder {
        private final InetSocketAddress replica;
        private byte[] secret;
        private boolean insecure;
        private Duration timeout = Duration.ofSeconds(10);
        private NanoClock nanoClock = SystemNanoClock.INSTANCE;

        private Builder(final InetSocketAddress replica) {
            this.replica = Objects.requireNonNull(replica, "replica");
        }

        /**
         * @param secret the replicas' shared secret, at least {@value Handshake#MIN_SECRET_LENGTH} bytes.
         * @return this builder.
         */
        public Builder sharedSecret(final byte[] secret) {
            this.secret = Handshake.checkedSecret(secret);
            return this;
        }

        /**
         * Fetches from a sink without a shared secret: nothing is authenticated, so the replica's bytes are trusted
         * as they come (each is still checked against its own CRC32C before it is written).
         *
         * @return this builder.
         */
        public Builder insecure() {
            this.insecure = true;
            return this;
        }

        /**
         * @param timeout the longest wait for each answer of the replica, and for a connection: one that fails
         *                (refused, reset, closed, silent) is tried again, after 50 ms doubling to 1 s, until this
         *                much time has passed since the first attempt; 10 s unless set.
         * @return this builder.
         */
        public Builder timeout(final Duration timeout) {
            this.timeout = Handshake.checkedHeartbeatInterval(timeout);
            return this;
        }

        /**
         * @param clock the clock of the timeout.
         * @return this builder.
         */
        public Builder nanoClock(final NanoClock clock) {
            this.nanoClock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** @return the repair of this builder's settings, for {@link QueueRepair#repair}. */
        private QueueRepair build() {
            Handshake.checkSecurity("the repair from " + replica, secret, insecure);
            return new QueueRepair(replica, secret, timeout, nanoClock);
        }

        /**
         * Repairs every damaged range of {@code queue}: see {@link QueueRepair#repair(SpoolQueue)}.
         *
         * @param queue the queue to repair, opened writable.
         * @return the number of regions rewritten.
         */
        public long repair(final SpoolQueue queue) {
            return build().repair(queue);
        }

        /**
         * Repairs the damaged excerpts of a range of {@code queue}: see {@link QueueRepair#repair(SpoolQueue, long, long)}.
         *
         * @param queue     the queue to repair, opened writable.
         * @param fromIndex the first index to repair.
         * @param toIndex   the last index to repair, inclusive.
         * @return the number of regions rewritten.
         */
        public long repair(final SpoolQueue queue, final long fromIndex, final long toIndex) {
            return build().repair(queue, fromIndex, toIndex);
        }
    }
}
