package dev.spool.queue;

import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.format.TypedExcerptDescriptor;
import dev.spool.queue.internal.QueueInternals;
import dev.spool.queue.tools.SpoolTool;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/** Entry points of the child JVMs of the read-only and file-mode tests. Each prints what the parent checks. */
public final class ReadOnlyMains {
    private ReadOnlyMains() {
    }

    /**
     * {@code dir}: opens the queue writable (expecting a failure), read-only (reading every excerpt), and through
     * the CLI's {@code tail}; prints one line for each.
     */
    public static final class Reader {
        public static void main(final String[] args) {
            final Path directory = Path.of(args[0]);
            try (SpoolQueue queue = SpoolQueue.open(directory)) {
                System.out.println("WRITABLE opened " + queue.lastIndex());
            } catch (RuntimeException e) {
                System.out.println("WRITABLE failed " + e.getMessage().replace('\n', ' '));
            }
            long count = 0;
            long last = -1;
            try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().openOrCreate();
                 ExcerptTailer tailer = queue.createTailer()) {
                final long[] lastRead = {-1};
                while (tailer.read((bytes, offset, length, index) -> lastRead[0] = index)) {
                    count++;
                }
                last = lastRead[0];
                System.out.println("READ " + count + " " + last + " " + queue.lastIndex());
            } catch (RuntimeException e) {
                System.out.println("READ failed " + e);
            }
            final ByteArrayOutputStream out = new ByteArrayOutputStream();
            final int status;
            try (PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8)) {
                status = SpoolTool.run(new String[]{"tail", directory.toString()}, print, print);
            }
            final String text = out.toString(StandardCharsets.UTF_8);
            System.out.println("TAIL " + status + " " + text.lines().count() + " "
                    + text.lines().findFirst().orElse("").replace('\n', ' '));
        }
    }

    /**
     * {@code dir}: tries to open the queue's lock file and hold a shared lock on every process slot, as a
     * reader-only user attacking the write lock would; prints {@code LOCK denied ...} or {@code LOCK held}, then waits
     * to be killed.
     */
    public static final class SlotSquatter {
        public static void main(final String[] args) throws Exception {
            final Path lockFile = Path.of(args[0]).resolve(MetadataDescriptor.LOCK_FILE_NAME);
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.READ)) {
                for (int slot = 0; slot < MetadataDescriptor.PROCESS_SLOT_COUNT; slot++) {
                    channel.lock(slot, 1, true);
                }
                System.out.println("LOCK held");
                Thread.sleep(Long.MAX_VALUE);
            } catch (java.io.IOException e) {
                System.out.println("LOCK denied " + e);
            }
        }
    }

    /**
     * {@code dir}: opens the queue read-only and tries every call that would write to it, printing {@code TRY name}
     * before each and then {@code REFUSED name}, or {@code WROTE name} / {@code WRONG name exception} if the call was
     * not refused with a {@link SpoolException} saying the queue is read-only; {@code DONE} at the end. A call that
     * writes to the read-only mapping kills this JVM instead.
     */
    public static final class EveryWrite {
        public static void main(final String[] args) {
            final Path directory = Path.of(args[0]);
            try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly().open()) {
                final QueueInternals internals = queue.unwrap(QueueInternals.class);
                final byte[] schema = (TypedExcerptDescriptor.SCHEMA_HEADER + "\n").getBytes(StandardCharsets.UTF_8);
                final Map<String, Runnable> writes = new LinkedHashMap<>();
                writes.put("schemaFiles.store", () -> internals.schemaFiles().store("a.Events.spool-schema", schema));
                writes.put("recordQuorumAcked", () -> internals.recordQuorumAcked(0));
                writes.put("recordAcked", () -> internals.recordAcked(0));
                writes.put("namedPosition", () -> internals.namedPosition("audit").close());
                writes.put("createIndexedAppender", () -> internals.createIndexedAppender().close());
                writes.put("promote", internals::promote);
                writes.put("fence", () -> internals.fence(internals.term() + 1));
                writes.put("adoptTerm", () -> internals.adoptTerm(dev.spool.queue.internal.TermHistory.of(internals.term() + 1)));
                writes.put("createAppender", () -> queue.createAppender().close());
                writes.put("createAppender(policy)", () -> queue.createAppender(SyncPolicy.everyMessage()).close());
                writes.put("createTailer(name)", () -> queue.createTailer("audit").close());
                writes.put("createTailer(name, EXPLICIT)", () -> queue.createTailer("audit", CommitMode.EXPLICIT).close());
                writes.put("removeTailer", () -> queue.removeTailer("audit"));
                writes.put("createPretoucher", () -> queue.createPretoucher().close());
                writes.put("startPretoucher", () -> queue.startPretoucher(Duration.ofMillis(1)).close());
                writes.put("applyRetention", queue::applyRetention);
                writes.put("createRetention", queue::createRetention);
                writes.put("createGroupCommit", () -> queue.createGroupCommit().close());
                writes.put("startGroupCommit", () -> queue.startGroupCommit().close());
                for (final Map.Entry<String, Runnable> write : writes.entrySet()) {
                    System.out.println("TRY " + write.getKey());
                    try {
                        write.getValue().run();
                        System.out.println("WROTE " + write.getKey());
                    } catch (SpoolException e) {
                        System.out.println((e.getMessage().contains("is open read-only") ? "REFUSED " : "WRONG ")
                                + write.getKey() + " " + e.getMessage().replace('\n', ' '));
                    } catch (RuntimeException e) {
                        System.out.println("WRONG " + write.getKey() + " " + e);
                    }
                }
            }
            System.out.println("DONE");
        }
    }
}
