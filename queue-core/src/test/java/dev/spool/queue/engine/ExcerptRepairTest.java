package dev.spool.queue.engine;

import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.Messages;
import dev.spool.queue.RepairRefusedException;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.RepairJournalDescriptor;
import dev.spool.queue.internal.DamagedRange;
import dev.spool.queue.internal.QueueInternals;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantReadWriteLock;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Repair of damaged excerpts in place from another copy's bodies ({@link ExcerptRepairer}, {@link RepairJournal}):
 * what checksums prove is restored byte for byte, what they cannot prove is refused with nothing written, a journal
 * left by a crash is finished by the next writer, and a concurrent reader never reads a wrong excerpt.
 */
class ExcerptRepairTest extends SpoolTestBase {
    /** The mode a queue's files get unless its builder says otherwise. */
    private static final Set<PosixFilePermission> DEFAULT_FILE_MODE = PosixFilePermissions.fromString("rw-r-----");

    private static final int EXCERPTS = 200;

    /** Writes a checksummed queue of {@link #EXCERPTS} self-checking messages and copies it as the replica. */
    private Path[] primaryAndReplica(final boolean checksums) throws IOException {
        final Path primary = tempDir.resolve("primary");
        try (SpoolQueue queue = SpoolQueue.builder(primary).rollCycle(RollCycle.DAILY).checksums(checksums)
                .indexSpacing(4).indexBlockEntries(8).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final byte[] message = new byte[200];
            for (int i = 0; i < EXCERPTS; i++) {
                final int length = Messages.lengthOf(0, i, message.length);
                Messages.encode(message, length, 0, i);
                appender.append(message, 0, length);
            }
        }
        final Path replica = tempDir.resolve("replica");
        Files.createDirectories(replica);
        try (var files = Files.list(primary)) {
            for (final Path file : files.toList()) {
                Files.copy(file, replica.resolve(file.getFileName()));
            }
        }
        return new Path[]{primary, replica};
    }

    private static Path cycleFile(final Path directory) throws IOException {
        try (var files = Files.list(directory)) {
            return files.filter(f -> f.getFileName().toString().endsWith(RollCycle.FILE_SUFFIX)).findFirst().orElseThrow();
        }
    }

    /** @return the position of the header of the data excerpt of sequence {@code n}, by a walk of the file. */
    private static long headerPosition(final Path cycleFile, final int n) throws IOException {
        final byte[] bytes = Files.readAllBytes(cycleFile);
        final java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(bytes).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long position = dev.spool.queue.format.CycleDescriptor.DATA_OFFSET;
        int sequence = 0;
        while (true) {
            final int header = buffer.getInt((int) position);
            if (ExcerptDescriptor.isData(header)) {
                if (sequence++ == n) {
                    return position;
                }
            }
            position += ExcerptDescriptor.alignedLength(ExcerptDescriptor.length(header));
        }
    }

    private static void flip(final Path file, final long position, final int bit) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(position);
            final int value = raf.read();
            raf.seek(position);
            raf.write(value ^ (1 << bit));
        }
    }

    /** @return the replica's body of each index, as a body tailer delivers it. */
    private static Map<Long, byte[]> bodies(final Path replica) {
        final Map<Long, byte[]> bodies = new HashMap<>();
        try (SpoolQueue queue = SpoolQueue.builder(replica).readOnly().open();
             ExcerptTailer tailer = queue.unwrap(QueueInternals.class).createBodyTailer()) {
            while (tailer.read((bytes, offset, length, index) -> {
                final byte[] body = new byte[length];
                bytes.read(offset, body, 0, length);
                bodies.put(index, body);
            })) {
                assertTrue(bodies.size() <= EXCERPTS);
            }
        }
        return bodies;
    }

    private static Map<String, byte[]> cycleContents(final Path directory) throws IOException {
        final Map<String, byte[]> all = contents(directory);
        all.keySet().removeIf(name -> !name.endsWith(RollCycle.FILE_SUFFIX));
        return all;
    }

    private static void assertSameCycleFiles(final Path expected, final Path actual) throws IOException {
        final Map<String, byte[]> want = cycleContents(expected);
        final Map<String, byte[]> have = cycleContents(actual);
        assertEquals(want.keySet(), have.keySet());
        want.forEach((name, bytes) -> assertArrayEquals(bytes, have.get(name), name + " equals the replica's"));
    }

    @Test
    void shouldRestoreTheReplicasBytesOfAnExcerptWhoseChecksumFails() throws IOException {
        final Path[] dirs = primaryAndReplica(true);
        final Path file = cycleFile(dirs[0]);
        final long header = headerPosition(file, 17);
        flip(file, header + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET + 3, 5);
        final Map<Long, byte[]> bodies = bodies(dirs[1]);
        try (SpoolQueue queue = SpoolQueue.builder(dirs[0]).open()) {
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            final List<DamagedRange> damaged = internals.damagedRanges(0);
            assertEquals(1, damaged.size(), damaged.toString());
            final long index = damaged.get(0).fromIndex();
            assertEquals(17, queue.rollCycle().toSequence(index));
            assertTrue(damaged.get(0).what().contains("position=" + header), damaged.get(0).what());
            assertEquals(1, internals.repairExcerpts(index, index, bodies::get));
            assertEquals(List.of(), internals.damagedRanges(0));
            assertEquals(0, internals.repairExcerpts(index, index, bodies::get), "a second repair finds nothing to do");
        }
        assertSameCycleFiles(dirs[1], dirs[0]);
        assertFalse(Files.exists(dirs[0].resolve(RepairJournalDescriptor.FILE_NAME)));
    }

    @Test
    void shouldRepairEveryDamagedRangeFromACopyInOneApplicationCall() throws IOException {
        final Path[] dirs = primaryAndReplica(true);
        final Path file = cycleFile(dirs[0]);
        flip(file, headerPosition(file, 2) + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET, 0);
        flip(file, headerPosition(file, 3) + ExcerptDescriptor.CHECKSUM_OFFSET, 7);
        // a bad header hides the damage after it until it is repaired: a second scan finds the flip at 120
        flip(file, headerPosition(file, 90) + 3, 5);
        flip(file, headerPosition(file, 120) + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET + 4, 2);
        try (SpoolQueue queue = SpoolQueue.builder(dirs[0]).open();
             SpoolQueue copy = SpoolQueue.builder(dirs[1]).readOnly().open()) {
            assertEquals(4, queue.repairFrom(copy));
            assertEquals(0, queue.repairFrom(copy));
            assertThrows(dev.spool.queue.SpoolException.class, () -> queue.repairFrom(queue));
        }
        assertSameCycleFiles(dirs[1], dirs[0]);
    }

    @Test
    void shouldRestoreAnIndexEntryThatPointsElsewhereThanAtTheExcerptOfItsSequence() throws IOException {
        final Path[] dirs = primaryAndReplica(true);
        final Path file = cycleFile(dirs[0]);
        // sequence 44 has an index entry (every 4th); make it point at the excerpt of sequence 45
        final long entry = indexEntryPosition(file, 44);
        final long wrong = headerPosition(file, 45);
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(entry);
            raf.write(java.nio.ByteBuffer.allocate(8).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(0, wrong).array());
        }
        try (SpoolQueue queue = SpoolQueue.builder(dirs[0]).open();
             SpoolQueue copy = SpoolQueue.builder(dirs[1]).readOnly().open()) {
            final List<DamagedRange> damaged = queue.unwrap(QueueInternals.class).damagedRanges(0);
            assertEquals(1, damaged.size(), damaged.toString());
            assertTrue(damaged.get(0).what().contains("the index entry at position=" + entry), damaged.get(0).what());
            assertEquals(44, queue.rollCycle().toSequence(damaged.get(0).fromIndex()));
            assertEquals(1, queue.repairFrom(copy));
        }
        assertSameCycleFiles(dirs[1], dirs[0]);
    }

    /** @return the position of the index entry of {@code sequence}, a multiple of the spacing of 4 in blocks of 8. */
    private static long indexEntryPosition(final Path cycleFile, final int sequence) throws IOException {
        final java.nio.ByteBuffer bytes = java.nio.ByteBuffer.wrap(Files.readAllBytes(cycleFile))
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        final int entry = sequence / 4;
        final long block = bytes.getLong((int) dev.spool.queue.format.CycleDescriptor.rootEntryPosition(entry / 8));
        return dev.spool.queue.format.CycleDescriptor.indexEntryPosition(block, entry % 8);
    }

    @Test
    void shouldRefuseToRepairFromAnotherQueue() throws IOException {
        final Path[] dirs = primaryAndReplica(true);
        try (SpoolQueue queue = SpoolQueue.builder(dirs[0]).open();
             SpoolQueue other = SpoolQueue.builder(tempDir.resolve("other")).checksums(true).openOrCreate()) {
            final dev.spool.queue.SpoolException refused = assertThrows(dev.spool.queue.SpoolException.class,
                    () -> queue.repairFrom(other));
            assertTrue(refused.getMessage().contains("another queue, not a copy"), refused.getMessage());
        }
    }

    @Test
    void shouldRestoreABadDataHeaderWhenTheBytesAfterItAreTheReplicasBody() throws IOException {
        final Path[] dirs = primaryAndReplica(true);
        final Path file = cycleFile(dirs[0]);
        final long header = headerPosition(file, 40);
        // bit 29 of the little-endian header: the end-of-cycle flag, which no data header carries
        flip(file, header + 3, 5);
        final Map<Long, byte[]> bodies = bodies(dirs[1]);
        try (SpoolQueue queue = SpoolQueue.builder(dirs[0]).open()) {
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            final List<DamagedRange> damaged = internals.damagedRanges(0);
            assertEquals(1, damaged.size(), damaged.toString());
            assertTrue(damaged.get(0).what().startsWith("bad header"), damaged.get(0).what());
            final long index = damaged.get(0).fromIndex();
            assertEquals(1, internals.repairExcerpts(index, index, bodies::get));
            assertEquals(List.of(), internals.damagedRanges(0));
        }
        assertSameCycleFiles(dirs[1], dirs[0]);
    }

    @Test
    void shouldRefuseAndWriteNothingWhenTheReplicasBodyFailsItsOwnChecksum() throws IOException {
        final Path[] dirs = primaryAndReplica(true);
        final Path file = cycleFile(dirs[0]);
        flip(file, headerPosition(file, 5) + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET, 1);
        final Map<Long, byte[]> bodies = bodies(dirs[1]);
        try (SpoolQueue queue = SpoolQueue.builder(dirs[0]).open()) {
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            final long index = internals.damagedRanges(0).get(0).fromIndex();
            bodies.get(index)[ExcerptDescriptor.CHECKSUM_LENGTH + 2] ^= 4;
            final Map<String, byte[]> before = cycleContents(dirs[0]);
            final RepairRefusedException refused = assertThrows(RepairRefusedException.class,
                    () -> internals.repairExcerpts(index - 2, index + 2, bodies::get));
            assertTrue(refused.getMessage().startsWith("repair of 0x" + Long.toHexString(index - 2)), refused.getMessage());
            assertTrue(refused.getMessage().contains("..0x" + Long.toHexString(index + 2)), refused.getMessage());
            assertTrue(refused.getMessage().contains("fails its own CRC32C"), refused.getMessage());
            assertTrue(refused.getMessage().contains("nothing was written"), refused.getMessage());
            assertEquals(index - 2, refused.fromIndex());
            before.forEach((name, bytes) -> assertArrayEquals(bytes, readUnchecked(dirs[0].resolve(name))));
        }
    }

    @Test
    void shouldRefuseWhenTheReplicasBodyHasAnotherLength() throws IOException {
        final Path[] dirs = primaryAndReplica(true);
        final Path file = cycleFile(dirs[0]);
        flip(file, headerPosition(file, 9) + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET, 1);
        final Map<Long, byte[]> bodies = bodies(dirs[1]);
        try (SpoolQueue queue = SpoolQueue.builder(dirs[0]).open()) {
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            final long index = internals.damagedRanges(0).get(0).fromIndex();
            // a longer body that passes its own checksum: right by its CRC32C, but not the stored excerpt's length
            final byte[] longer = Arrays.copyOf(bodies.get(index), bodies.get(index).length + 8);
            final java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
            crc.update(longer, 4, longer.length - 4);
            java.nio.ByteBuffer.wrap(longer).order(java.nio.ByteOrder.LITTLE_ENDIAN).putInt(0, (int) crc.getValue());
            bodies.put(index, longer);
            final Map<String, byte[]> before = cycleContents(dirs[0]);
            final RepairRefusedException refused = assertThrows(RepairRefusedException.class,
                    () -> internals.repairExcerpts(index, index, bodies::get));
            assertTrue(refused.getMessage().contains("cannot be rewritten in place"), refused.getMessage());
            before.forEach((name, bytes) -> assertArrayEquals(bytes, readUnchecked(dirs[0].resolve(name))));
        }
    }

    @Test
    void shouldRefuseInAQueueWithoutChecksums() throws IOException {
        final Path[] dirs = primaryAndReplica(false);
        try (SpoolQueue queue = SpoolQueue.builder(dirs[0]).open()) {
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            final RepairRefusedException refused = assertThrows(RepairRefusedException.class,
                    () -> internals.repairExcerpts(0, 3, index -> null));
            assertTrue(refused.getMessage().contains("without checksums"), refused.getMessage());
            assertThrows(RepairRefusedException.class, () -> internals.damagedRanges(0));
        }
    }

    @Test
    void shouldFinishARepairCutShortWhenAWriterOpensTheQueue() throws IOException {
        final Path[] dirs = primaryAndReplica(true);
        final Path file = cycleFile(dirs[0]);
        final long header = headerPosition(file, 33);
        flip(file, header + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET + 1, 0);
        final byte[] body;
        try (SpoolQueue queue = SpoolQueue.builder(dirs[1]).readOnly().open()) {
            final long index = queue.firstIndex() + 33;
            body = bodies(dirs[1]).get(index);
        }
        // what a crash right after the journal reached the disk leaves: a journal, and the file not yet written
        RepairJournal.write(dirs[0], List.of(new RepairJournal.Entry(file.getFileName().toString(),
                header + ExcerptDescriptor.HEADER_LENGTH, body)), DEFAULT_FILE_MODE);
        expectWarning("is applied again");
        try (SpoolQueue queue = SpoolQueue.builder(dirs[0]).open()) {
            assertEquals(List.of(), queue.unwrap(QueueInternals.class).damagedRanges(0));
        }
        assertSameCycleFiles(dirs[1], dirs[0]);
        assertFalse(Files.exists(dirs[0].resolve(RepairJournalDescriptor.FILE_NAME)));
    }

    @Test
    void shouldCreateTheRepairJournalWithTheQueuesFileModeReplacingATemporaryOneACrashLeft() throws IOException {
        final Path[] dirs = primaryAndReplica(true);
        final Path file = cycleFile(dirs[0]);
        final Path temp = dirs[0].resolve(RepairJournalDescriptor.TEMP_FILE_NAME);
        Files.write(temp, new byte[]{1, 2, 3});
        Files.setPosixFilePermissions(temp, PosixFilePermissions.fromString("rw-rw-rw-"));
        final Set<PosixFilePermission> mode = PosixFilePermissions.fromString("rw-rw----");

        RepairJournal.write(dirs[0], List.of(new RepairJournal.Entry(file.getFileName().toString(),
                headerPosition(file, 3) + ExcerptDescriptor.HEADER_LENGTH, new byte[8])), mode);

        final Path journal = dirs[0].resolve(RepairJournalDescriptor.FILE_NAME);
        assertEquals(mode, Files.getPosixFilePermissions(journal));
        assertFalse(Files.exists(temp));
        Files.delete(journal);
    }

    @Test
    void shouldDiscardAnIncompleteJournalWithoutWritingIt() throws IOException {
        final Path[] dirs = primaryAndReplica(true);
        final Path file = cycleFile(dirs[0]);
        RepairJournal.write(dirs[0], List.of(new RepairJournal.Entry(file.getFileName().toString(),
                headerPosition(file, 3) + ExcerptDescriptor.HEADER_LENGTH, new byte[]{1, 2, 3, 4, 5, 6, 7, 8})),
                DEFAULT_FILE_MODE);
        final Path journal = dirs[0].resolve(RepairJournalDescriptor.FILE_NAME);
        flip(journal, RepairJournalDescriptor.ENTRIES_OFFSET + 20, 3);
        Files.write(dirs[0].resolve(RepairJournalDescriptor.TEMP_FILE_NAME), new byte[]{1, 2, 3});
        expectWarning("is incomplete");
        final Map<String, byte[]> before = cycleContents(dirs[0]);
        try (SpoolQueue queue = SpoolQueue.builder(dirs[0]).open()) {
            assertEquals(List.of(), queue.unwrap(QueueInternals.class).damagedRanges(0));
        }
        before.forEach((name, bytes) -> assertArrayEquals(bytes, readUnchecked(dirs[0].resolve(name))));
        assertFalse(Files.exists(journal));
        assertFalse(Files.exists(dirs[0].resolve(RepairJournalDescriptor.TEMP_FILE_NAME)));
    }

    @Test
    void shouldNeverLetAConcurrentReaderReadAnythingButTheOriginalBytesOrAChecksumMismatch() throws Exception {
        final Path[] dirs = primaryAndReplica(true);
        final Path file = cycleFile(dirs[0]);
        final long header = headerPosition(file, 50);
        final Map<Long, byte[]> bodies = bodies(dirs[1]);
        try (SpoolQueue queue = SpoolQueue.builder(dirs[0]).open()) {
            final long index = queue.firstIndex() + 50;
            final byte[] original = Arrays.copyOfRange(bodies.get(index), ExcerptDescriptor.CHECKSUM_LENGTH,
                    bodies.get(index).length);
            final AtomicBoolean stop = new AtomicBoolean();
            final AtomicReference<String> wrong = new AtomicReference<>();
            final long[] reads = new long[2];
            // the damage is the test's, not the repair's: a reader whose check passed just before a flip would copy the
            // flipped bytes, so flips wait for the read in hand; the repairs do not
            final ReentrantReadWriteLock damaging = new ReentrantReadWriteLock();
            final Thread reader = new Thread(() -> {
                try (ExcerptTailer tailer = queue.createTailer()) {
                    while (!stop.get()) {
                        damaging.readLock().lock();
                        try {
                            tailer.moveToIndex(index);
                            tailer.read((bytes, offset, length, at) -> {
                                final byte[] read = new byte[length];
                                bytes.read(offset, read, 0, length);
                                if (!Arrays.equals(read, original)) {
                                    wrong.compareAndSet(null, "read different bytes at " + Long.toHexString(at));
                                }
                                reads[0]++;
                            });
                        } catch (CorruptQueueException e) {
                            reads[1]++;
                        } finally {
                            damaging.readLock().unlock();
                        }
                    }
                }
            });
            reader.start();
            final QueueInternals internals = queue.unwrap(QueueInternals.class);
            for (int round = 0; round < 200 && wrong.get() == null; round++) {
                damaging.writeLock().lock();
                try {
                    flip(file, header + ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET + round % original.length, round % 8);
                } finally {
                    damaging.writeLock().unlock();
                }
                assertEquals(1, internals.repairExcerpts(index, index, bodies::get));
            }
            stop.set(true);
            reader.join();
            assertNull(wrong.get());
            assertTrue(reads[0] > 0, "the reader read the repaired excerpt");
        }
        assertSameCycleFiles(dirs[1], dirs[0]);
    }

    private static byte[] readUnchecked(final Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
