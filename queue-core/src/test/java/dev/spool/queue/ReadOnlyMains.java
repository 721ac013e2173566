package dev.spool.queue;

import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.tools.SpoolTool;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

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
}
