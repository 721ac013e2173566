package dev.spool.queue;

import net.openhft.chronicle.bytes.Bytes;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.locks.LockSupport;

/** Entry points of the child JVMs the multi-process tests start. Each prints what the parent waits for. */
public final class ChildMains {
    private ChildMains() {
    }

    public static SpoolQueue open(final String dir) {
        return SpoolQueue.builder(Path.of(dir)).chunkLength(1 << 20).openOrCreate();
    }

    public static void awaitGo() throws Exception {
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("READY");
        if (!"GO".equals(in.readLine())) {
            throw new IllegalStateException("expected GO");
        }
    }

    /** {@code dir writerId count maxLength}: appends self-checking messages as fast as it can. */
    public static final class Appender {
        public static void main(final String[] args) throws Exception {
            final int writer = Integer.parseInt(args[1]);
            final int count = Integer.parseInt(args[2]);
            final int maxLength = Integer.parseInt(args[3]);
            try (SpoolQueue queue = open(args[0]); ExcerptAppender appender = queue.createAppender()) {
                final byte[] message = new byte[maxLength];
                awaitGo();
                for (int sequence = 0; sequence < count; sequence++) {
                    final int length = Messages.lengthOf(writer, sequence, maxLength);
                    Messages.encode(message, length, writer, sequence);
                    appender.append(message, 0, length);
                    if (count < 0 || sequence % 1000 == 999) {
                        System.out.println("APPENDED " + (sequence + 1));
                    }
                }
            }
            System.out.println("DONE");
        }
    }

    /** {@code dir count}: appends excerpts whose payload is the wall-clock time read just before the append. */
    public static final class TimedAppender {
        public static void main(final String[] args) throws Exception {
            final int count = Integer.parseInt(args[1]);
            try (SpoolQueue queue = open(args[0]); ExcerptAppender appender = queue.createAppender()) {
                final byte[] message = new byte[Long.BYTES];
                awaitGo();
                for (int sequence = 0; sequence < count; sequence++) {
                    final long now = System.currentTimeMillis();
                    for (int i = 0; i < Long.BYTES; i++) {
                        message[i] = (byte) (now >>> (8 * i));
                    }
                    appender.append(message);
                    if (sequence % 64 == 0) {
                        // let the other writers in, so that the file interleaves them
                        Thread.yield();
                    }
                }
            }
            System.out.println("DONE");
        }
    }

    /** {@code dir writerId}: appends until killed, printing progress: the lock is held most of the time. */
    public static final class EndlessAppender {
        public static void main(final String[] args) throws Exception {
            final int writer = Integer.parseInt(args[1]);
            final int maxLength = 64 * 1024;
            try (SpoolQueue queue = open(args[0]); ExcerptAppender appender = queue.createAppender()) {
                final byte[] message = new byte[maxLength];
                for (int sequence = 0; ; sequence++) {
                    final int length = Messages.lengthOf(writer, sequence, maxLength);
                    Messages.encode(message, length, writer, sequence);
                    appender.append(message, 0, length);
                    if (sequence == 100) {
                        System.out.println("RUNNING");
                    }
                }
            }
        }
    }

    /** {@code dir}: appends 10 messages, then claims, half-fills the claim and waits to be killed. */
    public static final class ClaimHolder {
        public static void main(final String[] args) {
            try (SpoolQueue queue = open(args[0]); ExcerptAppender appender = queue.createAppender()) {
                final byte[] message = new byte[100];
                for (int sequence = 0; sequence < 10; sequence++) {
                    Messages.encode(message, 100, 9, sequence);
                    appender.append(message);
                }
                final long offset = appender.claim(4000);
                for (int i = 0; i < 2000; i++) {
                    appender.claimedBytes().writeByte(offset + i, (byte) 0x5A);
                }
                System.out.println("CLAIMED " + appender.lastIndexAppended());
                while (true) {
                    LockSupport.park();
                }
            }
        }
    }

    /** {@code dir}: opens the queue and prints the error, if any, on one line. */
    public static final class Opener {
        public static void main(final String[] args) {
            try (SpoolQueue queue = open(args[0])) {
                System.out.println("OPENED " + queue.directory());
            } catch (RuntimeException e) {
                System.out.println("FAILED " + e.getClass().getSimpleName() + ": " + e.getMessage().replace('\n', ' '));
            }
        }
    }

    /**
     * {@code dir writerId}: appends with a sync policy on a secondly roll cycle until killed, printing
     * {@code SYNCED <index> <sequence>} whenever the queue's last synced index covers a new excerpt of its own.
     */
    public static final class SyncingAppender {
        public static void main(final String[] args) {
            final int writer = Integer.parseInt(args[1]);
            final SyncPolicy policy = SyncPolicy.everyMessages(500)
                    .or(SyncPolicy.when((bytes, offset, length) -> bytes.readByte(offset + 8) == 7));
            try (SpoolQueue queue = SpoolQueue.builder(Path.of(args[0])).chunkLength(1 << 20).rollCycle(RollCycle.SECONDLY)
                    .syncPolicy(policy).syncMarkers(true).openOrCreate();
                 ExcerptAppender appender = queue.createAppender()) {
                final byte[] message = new byte[300];
                long reported = -1;
                // paced at 20K msg/s, so two hundred kills make a queue of about a gigabyte, not tens
                final long start = System.nanoTime();
                for (int sequence = 0; ; sequence++) {
                    while (System.nanoTime() - start < sequence * 50_000L) {
                        Thread.onSpinWait();
                    }
                    final int length = Messages.lengthOf(writer, sequence, message.length);
                    Messages.encode(message, length, writer, sequence);
                    final long index = appender.append(message, 0, length);
                    if (queue.lastSyncedIndex() >= index && index > reported) {
                        reported = index;
                        System.out.println("SYNCED " + index + " " + sequence);
                    }
                }
            }
        }
    }

    /** {@code dir}: switches Chronicle's posix layer to its silent no-op fallback, then opens with a sync policy. */
    public static final class NoOpMsyncOpener {
        public static void main(final String[] args) {
            net.openhft.posix.PosixAPI.useNoOpPosixApi();
            try (SpoolQueue queue = SpoolQueue.builder(Path.of(args[0])).chunkLength(1 << 20)
                    .syncPolicy(SyncPolicy.everyMessage()).openOrCreate()) {
                System.out.println("OPENED " + queue.directory());
            } catch (RuntimeException e) {
                System.out.println("FAILED " + e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
    }

    /**
     * {@code dir leadMillis pretouchLength}: a pretoucher on a clock the parent sets. Reads commands from stdin:
     * {@code EXECUTE <millis>} sets the clock and runs {@link Pretoucher#doWork()} once, printing {@code EXECUTED
     * <work>}; {@code EXIT} closes the queue and prints {@code DONE}.
     */
    public static final class Pretouch {
        public static void main(final String[] args) throws Exception {
            final ManualClock clock = new ManualClock(0);
            final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            try (SpoolQueue queue = SpoolQueue.builder(Path.of(args[0])).chunkLength(1 << 20).epochClock(clock)
                    .pretouchLeadTime(java.time.Duration.ofMillis(Long.parseLong(args[1])))
                    .pretouchLength(Long.parseLong(args[2])).openOrCreate();
                 Pretoucher pretoucher = queue.createPretoucher()) {
                System.out.println("READY");
                for (String line = in.readLine(); line != null && !line.equals("EXIT"); line = in.readLine()) {
                    clock.advance(Long.parseLong(line.substring("EXECUTE ".length())) - clock.time());
                    System.out.println("EXECUTED " + pretoucher.doWork());
                }
            }
            System.out.println("DONE");
        }
    }

    /** {@code dir name count}: reads {@code count} excerpts with a named tailer and prints the last index. */
    public static final class NamedReader {
        public static void main(final String[] args) {
            final int count = Integer.parseInt(args[2]);
            try (SpoolQueue queue = open(args[0]); ExcerptTailer tailer = queue.createTailer(args[1])) {
                final Bytes<?> into = Bytes.allocateElasticOnHeap();
                long last = -1;
                for (int i = 0; i < count; i++) {
                    into.clear();
                    last = tailer.read(into);
                }
                System.out.println("LAST " + last);
            }
        }
    }

    /**
     * {@code dir name read committed}: reads {@code read} excerpts with an {@link CommitMode#EXPLICIT} named tailer,
     * commits the index of the {@code committed}-th, prints {@code COMMITTED <index> READ <last index read>} and
     * waits to be killed.
     */
    public static final class CommittingReader {
        public static void main(final String[] args) {
            final int read = Integer.parseInt(args[2]);
            final int committed = Integer.parseInt(args[3]);
            try (SpoolQueue queue = SpoolQueue.open(Path.of(args[0]));
                 ExcerptTailer tailer = queue.createTailer(args[1], CommitMode.EXPLICIT)) {
                final Bytes<?> into = Bytes.allocateElasticOnHeap();
                long commit = -1;
                long last = -1;
                for (int i = 1; i <= read; i++) {
                    into.clear();
                    last = tailer.read(into);
                    if (i == committed) {
                        commit = last;
                    }
                }
                tailer.commit(commit);
                System.out.println("COMMITTED " + commit + " READ " + last);
                while (true) {
                    LockSupport.park();
                }
            }
        }
    }

    /**
     * {@code dir name read}: an {@link CommitMode#ON_READ} named tailer reads {@code read} excerpts, then in the
     * handler of the next prints {@code IN_HANDLER <index>} and waits there to be killed.
     */
    public static final class DyingHandler {
        public static void main(final String[] args) {
            final int read = Integer.parseInt(args[2]);
            try (SpoolQueue queue = SpoolQueue.open(Path.of(args[0])); ExcerptTailer tailer = queue.createTailer(args[1])) {
                for (int i = 0; i < read; i++) {
                    tailer.read((bytes, offset, length, index) -> { });
                }
                tailer.read((bytes, offset, length, index) -> {
                    System.out.println("IN_HANDLER " + index);
                    while (true) {
                        LockSupport.park();
                    }
                });
            }
        }
    }
}
