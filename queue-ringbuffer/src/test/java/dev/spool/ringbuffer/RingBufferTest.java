package dev.spool.ringbuffer;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.Soak;
import dev.spool.queue.Messages;
import dev.spool.queue.CorruptQueueException;
import dev.spool.queue.SpoolException;
import org.junit.jupiter.api.Test;

import java.io.RandomAccessFile;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

class RingBufferTest extends SpoolTestBase {
    private static final int CAPACITY = 4096;

    private Path ringPath() {
        return tempDir.resolve("test.ring");
    }

    private static long append(final RingBuffer ring, final byte[] payload) {
        final long position = ring.tryClaim(payload.length);
        if (position >= 0) {
            ring.buffer().write(ring.payloadOffset(position), payload);
            assertTrue(ring.commit(position));
        }
        return position;
    }

    private static List<String> readAll(final RingBuffer ring) {
        final List<String> read = new ArrayList<>();
        while (ring.read((buffer, offset, length, position) -> {
            final byte[] bytes = new byte[length];
            buffer.read(offset, bytes, 0, length);
            read.add(new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1));
        }, 100) > 0) {
            // read until nothing is left
        }
        return read;
    }

    @Test
    void shouldReadCommittedRecordsInClaimOrder() {
        try (RingBuffer ring = RingBuffer.open(ringPath(), CAPACITY)) {
            assertEquals(0, append(ring, "first".getBytes()));
            assertEquals(RecordDescriptor.align(RecordDescriptor.HEADER_LENGTH + 5), append(ring, "second".getBytes()));
            assertEquals(List.of("first", "second"), readAll(ring));
            assertTrue(ring.isEmpty());
        }
    }

    @Test
    void shouldStopAtAClaimUntilItIsCommitted() {
        try (RingBuffer ring = RingBuffer.open(ringPath(), CAPACITY)) {
            final long open = ring.tryClaim(3);
            append(ring, "after".getBytes());
            assertEquals(List.of(), readAll(ring), "nothing passes an open claim");
            ring.buffer().write(ring.payloadOffset(open), "abc".getBytes());
            assertTrue(ring.commit(open));
            assertEquals(List.of("abc", "after"), readAll(ring));
        }
    }

    @Test
    void shouldSkipAnAbortedClaim() {
        try (RingBuffer ring = RingBuffer.open(ringPath(), CAPACITY)) {
            final long aborted = ring.tryClaim(10);
            append(ring, "kept".getBytes());
            assertTrue(ring.abort(aborted));
            assertFalse(ring.commit(aborted), "an aborted claim cannot be committed");
            assertEquals(List.of("kept"), readAll(ring));
        }
    }

    @Test
    void shouldPadTheEndOfTheRingWhenARecordDoesNotFitBeforeTheWrap() {
        try (RingBuffer ring = RingBuffer.open(ringPath(), CAPACITY)) {
            final byte[] payload = new byte[200];
            final int recordLength = RecordDescriptor.align(RecordDescriptor.HEADER_LENGTH + payload.length);
            final int fits = CAPACITY / recordLength;
            for (int i = 0; i < fits; i++) {
                assertEquals((long) i * recordLength, append(ring, payload));
            }
            assertEquals(fits, readAll(ring).size());
            payload[0] = 42;
            final long wrapped = append(ring, payload);
            assertEquals(CAPACITY, wrapped, "the record starts the next lap, after padding");
            assertEquals(CAPACITY + recordLength, ring.tailPosition(), "padding to the end, then the record");
            final List<String> read = readAll(ring);
            assertEquals(1, read.size(), "the padding is not a record");
            assertEquals(42, read.get(0).charAt(0));
            assertEquals(ring.tailPosition(), ring.headPosition());
        }
    }

    @Test
    void shouldReturnInsufficientCapacityWhenFullAndNeverOverwriteUndrainedRecords() {
        try (RingBuffer ring = RingBuffer.open(ringPath(), CAPACITY)) {
            final byte[] payload = new byte[100];
            int appended = 0;
            while (true) {
                payload[0] = (byte) appended;
                if (append(ring, payload) < 0) {
                    break;
                }
                appended++;
            }
            assertEquals(RingBuffer.INSUFFICIENT_CAPACITY, ring.tryClaim(100));
            assertEquals(CAPACITY / RecordDescriptor.align(RecordDescriptor.HEADER_LENGTH + 100), appended);
            final List<String> read = readAll(ring);
            assertEquals(appended, read.size());
            for (int i = 0; i < appended; i++) {
                assertEquals((byte) i, (byte) read.get(i).charAt(0), "record " + i + " intact");
            }
            assertTrue(append(ring, payload) >= 0, "room again once drained");
        }
    }

    @Test
    void shouldRevokeAClaimOlderThanTheTimeoutAndTellItsProducer() throws InterruptedException {
        try (RingBuffer ring = RingBuffer.open(ringPath(), CAPACITY, Duration.ofMillis(50))) {
            final long stuck = ring.tryClaim(16);
            append(ring, "behind".getBytes());
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            final List<String> read = new ArrayList<>();
            while (read.isEmpty() && System.nanoTime() < deadline) {
                read.addAll(readAll(ring));
                Thread.sleep(1);
            }
            assertEquals(List.of("behind"), read, "the stuck claim is skipped once revoked");
            assertFalse(ring.commit(stuck), "the late producer learns its claim was revoked");
            assertEquals(1, ring.stats().revokedClaims());
        }
    }

    @Test
    void shouldCommitWithTheClaimedLengthAndTellTheProducerOfARevokedClaimAsTheLoadingCommitDoes()
            throws InterruptedException {
        try (RingBuffer ring = RingBuffer.open(ringPath(), CAPACITY, Duration.ofMillis(50))) {
            final long stuck = ring.tryClaim(16);
            final long live = ring.tryClaim(8);
            ring.buffer().writeLong(ring.payloadOffset(live), 42L);
            assertTrue(ring.commit(live, 8), "one swap from the header word the claim published");
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            final List<Long> read = new ArrayList<>();
            while (read.isEmpty() && System.nanoTime() < deadline) {
                ring.read((buffer, offset, length, position) -> {
                    assertEquals(8, length);
                    read.add(buffer.readLong(offset));
                }, 10);
                Thread.sleep(1);
            }
            assertEquals(List.of(42L), read, "the live claim committed, the stuck one skipped once revoked");
            assertFalse(ring.commit(stuck, 16), "the late producer learns its claim was revoked");
            assertEquals(1, ring.stats().revokedClaims());
        }
    }

    @Test
    void shouldKeepEveryRecordOfConcurrentProducersIntactAndInEachProducersOrder() throws Exception {
        final int producers = 4;
        final int perProducer = Soak.count(50_000, 1_000_000);
        try (RingBuffer ring = RingBuffer.open(ringPath(), 1 << 16)) {
            final CountDownLatch start = new CountDownLatch(1);
            final ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
            final List<Thread> threads = new ArrayList<>();
            for (int p = 0; p < producers; p++) {
                final int writer = p;
                final Thread thread = new Thread(() -> {
                    final byte[] message = new byte[120];
                    try {
                        start.await();
                        for (int sequence = 0; sequence < perProducer; sequence++) {
                            final int length = Messages.lengthOf(writer, sequence, message.length);
                            Messages.encode(message, length, writer, sequence);
                            long position;
                            while ((position = ring.tryClaim(length)) < 0) {
                                Thread.onSpinWait();
                            }
                            ring.buffer().write(ring.payloadOffset(position), message, 0, length);
                            assertTrue(ring.commit(position));
                        }
                    } catch (Throwable e) {
                        failures.add(e);
                    }
                }, "producer-" + p);
                threads.add(thread);
                thread.start();
            }
            start.countDown();
            final int[] next = new int[producers];
            final long total = (long) producers * perProducer;
            long read = 0;
            while (read < total && failures.isEmpty()) {
                read += ring.read((buffer, offset, length, position) -> {
                    final int[] decoded = Messages.decode(buffer, offset, length, position);
                    assertEquals(next[decoded[0]]++, decoded[1], "producer " + decoded[0] + "'s order");
                }, 256);
            }
            for (final Thread thread : threads) {
                thread.join();
            }
            assertTrue(failures.isEmpty(), () -> "producer failed: " + failures);
            for (int p = 0; p < producers; p++) {
                assertEquals(perProducer, next[p], "every record of producer " + p);
            }
            assertTrue(ring.isEmpty());
            assertTrue(ring.stats().highWaterMark() > 0);
        }
    }

    @Test
    void shouldRejectAFileWithTheWrongMagicNamingFileAndValue() throws Exception {
        RingBuffer.open(ringPath(), CAPACITY).close();
        try (RandomAccessFile file = new RandomAccessFile(ringPath().toFile(), "rw")) {
            file.writeInt(0x12345678);
        }
        final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> RingBuffer.open(ringPath(), CAPACITY));
        assertTrue(e.getMessage().contains("magic=0x78563412") && e.getMessage().contains(ringPath().toString()), e.getMessage());
    }

    @Test
    void shouldRejectAFileWithAnUnknownVersion() throws Exception {
        RingBuffer.open(ringPath(), CAPACITY).close();
        try (RandomAccessFile file = new RandomAccessFile(ringPath().toFile(), "rw")) {
            file.seek(RingBufferDescriptor.VERSION_OFFSET);
            file.write(new byte[]{99, 0, 0, 0});
        }
        final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> RingBuffer.open(ringPath(), CAPACITY));
        assertTrue(e.getMessage().contains("version=99") && e.getMessage().contains(ringPath().toString()), e.getMessage());
    }

    @Test
    void shouldRejectARingOfVersion2WhoseHeadWasAlsoItsFreePosition() throws Exception {
        RingBuffer.open(ringPath(), CAPACITY).close();
        try (RandomAccessFile file = new RandomAccessFile(ringPath().toFile(), "rw")) {
            file.seek(RingBufferDescriptor.VERSION_OFFSET);
            file.write(new byte[]{2, 0, 0, 0});
        }
        final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> RingBuffer.open(ringPath(), CAPACITY));
        assertTrue(e.getMessage().contains("version=2") && e.getMessage().contains("reads 3")
                && e.getMessage().contains(ringPath().toString()), e.getMessage());
    }

    @Test
    void shouldRejectAFileWithABadCapacity() throws Exception {
        RingBuffer.open(ringPath(), CAPACITY).close();
        try (RandomAccessFile file = new RandomAccessFile(ringPath().toFile(), "rw")) {
            file.seek(RingBufferDescriptor.CAPACITY_OFFSET);
            file.write(new byte[]{1, 16, 0, 0});
        }
        final CorruptQueueException e = assertThrows(CorruptQueueException.class, () -> RingBuffer.open(ringPath(), CAPACITY));
        assertTrue(e.getMessage().contains("capacity=4097") && e.getMessage().contains(ringPath().toString()), e.getMessage());
    }

    @Test
    void shouldRejectACapacityOtherThanTheFilesOrNotAPowerOfTwo() {
        RingBuffer.open(ringPath(), CAPACITY).close();
        final SpoolException e = assertThrows(SpoolException.class, () -> RingBuffer.open(ringPath(), 2 * CAPACITY));
        assertTrue(e.getMessage().contains("capacity=4096") && e.getMessage().contains("8192"), e.getMessage());
        final SpoolException bad = assertThrows(SpoolException.class,
                () -> RingBuffer.open(tempDir.resolve("other.ring"), 5000));
        assertTrue(bad.getMessage().contains("capacity=5000"), bad.getMessage());
    }

    @Test
    void shouldRejectAPayloadLongerThanAnEighthOfTheCapacity() {
        try (RingBuffer ring = RingBuffer.open(ringPath(), CAPACITY)) {
            assertEquals(CAPACITY / 8 - RecordDescriptor.HEADER_LENGTH, ring.maxPayloadLength());
            assertThrows(SpoolException.class, () -> ring.tryClaim(ring.maxPayloadLength() + 1));
        }
    }
}
