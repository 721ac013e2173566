package dev.spool.replication;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.Direction;
import dev.spool.queue.SpoolException;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.internal.QueueInternals;
import net.openhft.chronicle.bytes.Bytes;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/** Entry points of the child JVMs of the replication tests; each prints what the parent waits for. */
final class ReplicationMains {
    static final Duration HEARTBEAT = Duration.ofMillis(200);

    private ReplicationMains() {
    }

    /** @return the loopback addresses of a comma-separated list of ports: one sink each. */
    static InetSocketAddress[] sinks(final String ports) {
        final String[] each = ports.split(",");
        final InetSocketAddress[] sinks = new InetSocketAddress[each.length];
        for (int i = 0; i < each.length; i++) {
            sinks[i] = new InetSocketAddress(InetAddress.getLoopbackAddress(), Integer.parseInt(each[i]));
        }
        return sinks;
    }

    /** @return a builder of a source to the sinks on a comma-separated list of ports. */
    static ReplicationSource.Builder source(final SpoolQueue queue, final String ports) {
        final InetSocketAddress[] sinks = sinks(ports);
        return ReplicationSource.builder(queue, sinks[0], Arrays.copyOfRange(sinks, 1, sinks.length)).sharedSecret(Replicas.SECRET)
                .heartbeatInterval(HEARTBEAT).reconnectBackoff(Duration.ofMillis(10), Duration.ofMillis(200));
    }

    /** Blocks until stdin closes or says STOP: the parent ends a child by killing it or by closing its input. */
    static void awaitStop() throws Exception {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null && !"STOP".equals(line)) {
            LockSupport.parkNanos(1_000_000);
        }
    }

    /** {@code dir port}: a sink on loopback. */
    static final class Sink {
        public static void main(final String[] args) throws Exception {
            try (ReplicationSink sink = ReplicationSink.builder(Path.of(args[0])).sharedSecret(Replicas.SECRET).queueSettings(b -> b.chunkLength(1 << 20))
                    .port(Integer.parseInt(args[1])).heartbeatInterval(HEARTBEAT).start()) {
                System.out.println("LISTENING " + sink.address().getPort());
                final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                String line;
                while ((line = in.readLine()) != null && !"STOP".equals(line)) {
                    if ("PROMOTE".equals(line)) {
                        System.out.println("PROMOTED " + sink.promote());
                        return;
                    }
                }
            }
        }
    }

    /**
     * {@code dir sinkPorts}: a primary queue, a source replicating it to the sinks' ports (comma-separated) and a
     * publish gateway; prints
     * the gateway's port, and FAILED with the reason if the source stops for good.
     */
    static final class Gateway {
        public static void main(final String[] args) throws Exception {
            try (SpoolQueue queue = Replicas.open(Path.of(args[0]));
                 ReplicationSource source = source(queue, args[1]).start();
                 PublishGateway gateway = PublishGateway.builder(queue, source).sharedSecret(Replicas.SECRET).start()) {
                System.out.println("GATEWAY " + gateway.address().getPort());
                final Thread stopper = new Thread(() -> {
                    try {
                        awaitStop();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, "stdin");
                stopper.setDaemon(true);
                stopper.start();
                while (stopper.isAlive()) {
                    if (source.failure() != null) {
                        System.out.println("FAILED " + source.failure().getMessage());
                        stopper.join();
                    }
                    LockSupport.parkNanos(10_000_000);
                }
            }
        }
    }

    /**
     * {@code dir}: a primary queue with publisher ids and a publish gateway on it, without a replica (commits up to
     * {@link CommitStage#WRITTEN}); prints the gateway's port, then runs until stopped.
     */
    static final class LoneGateway {
        public static void main(final String[] args) throws Exception {
            try (SpoolQueue queue = SpoolQueue.builder(Path.of(args[0])).chunkLength(1 << 20).publisherIds(true)
                    .openOrCreate();
                 PublishGateway gateway = PublishGateway.builder(queue, null).sharedSecret(Replicas.SECRET).start()) {
                System.out.println("GATEWAY " + gateway.address().getPort());
                awaitStop();
            }
        }
    }

    /**
     * {@code dir count}: another process's typed writer: creates a method writer of
     * {@link SchemaReplicationTest.Trades} on the queue (which stores its schema file and counts it in the queue's
     * metadata) and writes {@code count} trades, then prints WROTE and the last index.
     */
    static final class TypedWriter {
        public static void main(final String[] args) throws Exception {
            try (SpoolQueue queue = Replicas.open(Path.of(args[0])); ExcerptAppender appender = queue.createAppender()) {
                final SchemaReplicationTest.Trades trades = appender.methodWriter(SchemaReplicationTest.Trades.class);
                for (int i = 0; i < Integer.parseInt(args[1]); i++) {
                    trades.trade(7, i);
                }
                System.out.println("WROTE " + queue.lastIndex());
            }
        }
    }

    /**
     * {@code dir ports total perSecond [invoked]}: appends messages 0 to total - 1 of {@link Replicas#message(long)} at
     * about the given rate, resuming after the last one in the queue, while a source replicates them to the ports
     * (comma-separated; the ack quorum a majority of them);
     * with {@code invoked}, a thread of its own streams for the source through {@link ReplicationSource#doWork()}.
     */
    static final class Writer {
        public static void main(final String[] args) throws Exception {
            final long total = Long.parseLong(args[2]);
            final long perSecond = Long.parseLong(args[3]);
            try (SpoolQueue queue = Replicas.open(Path.of(args[0]));
                 ExcerptAppender appender = queue.createAppender();
                 ReplicationSource source = source(queue, args[1])
                         .invoked(args.length > 4 && "invoked".equals(args[4])).start()) {
                if (source.isInvoked()) {
                    final Thread invoker = new Thread(() -> {
                        while (true) {
                            if (source.doWork() == 0) {
                                LockSupport.parkNanos(20_000);
                            }
                        }
                    }, "invoker");
                    invoker.setDaemon(true);
                    invoker.start();
                }
                final long first = nextSequence(queue);
                System.out.println("WRITING " + first);
                final long start = System.nanoTime();
                for (long sequence = first; sequence < total; sequence++) {
                    final long due = start + (sequence - first) * 1_000_000_000L / perSecond;
                    while (System.nanoTime() < due) {
                        LockSupport.parkNanos(100_000);
                    }
                    appender.append(Replicas.message(sequence));
                }
                System.out.println("DONE");
                if (source.failure() != null) {
                    System.out.println("FAILED " + source.failure());
                }
                awaitStop();
            }
        }

        private static long nextSequence(final SpoolQueue queue) {
            final Bytes<?> last = Bytes.allocateElasticOnHeap();
            try (ExcerptTailer tailer = queue.createTailer()) {
                tailer.direction(Direction.BACKWARD).toEnd();
                return tailer.read(last) < 0 ? 0 : Replicas.sequenceOf(last.toByteArray()) + 1;
            } finally {
                last.releaseLast();
            }
        }
    }

    /**
     * {@code primaryDir replicaDir}: a sink on loopback into the replica, and a source of the primary opened
     * read-only; prints {@code REFUSED message} if the source is refused, else {@code STARTED} and {@code ACKED} once
     * the replica acknowledged the primary's last index (a source that records the acknowledgement in the read-only
     * metadata kills this JVM first); {@code DONE} at the end.
     */
    static final class ReadOnlySource {
        public static void main(final String[] args) throws Exception {
            try (ReplicationSink sink = ReplicationSink.builder(Path.of(args[1])).sharedSecret(Replicas.SECRET)
                    .queueSettings(b -> b.chunkLength(1 << 20)).port(0).heartbeatInterval(HEARTBEAT).start();
                 SpoolQueue queue = SpoolQueue.builder(Path.of(args[0])).readOnly().open()) {
                try (ReplicationSource source = source(queue, String.valueOf(sink.address().getPort())).start()) {
                    System.out.println("STARTED");
                    final long last = queue.lastIndex();
                    Replicas.await(() -> queue.unwrap(QueueInternals.class).lastAckedIndex() >= last || source.failure() != null,
                            "the replica's acknowledgement of the last index");
                    System.out.println("ACKED");
                } catch (SpoolException e) {
                    System.out.println("REFUSED " + e.getMessage().replace('\n', ' '));
                }
            }
            System.out.println("DONE");
        }
    }
}
