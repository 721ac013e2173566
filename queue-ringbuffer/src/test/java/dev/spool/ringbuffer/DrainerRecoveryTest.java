package dev.spool.ringbuffer;

import dev.spool.queue.SpoolTestBase;
import dev.spool.queue.Messages;
import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.SpoolQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** A drainer that finds its predecessor died while releasing drained records finishes the release and appends nothing. */
class DrainerRecoveryTest extends SpoolTestBase {

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void shouldFinishTheReleaseAndAppendNothingWhenThePredecessorDiedWhileReleasing() {
        // the test copies the batch as the drainer would, with an appender made before the async queue refuses them
        try (SpoolQueue queue = SpoolQueue.builder(tempDir.resolve("q")).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender queueAppender = queue.createAppender();
             AsyncQueue async = AsyncQueue.builder(queue).ringPath(tempDir.resolve("q.ring")).ringCapacity(1 << 16).build()) {
            final RingBuffer ring = async.ring();
            final List<byte[]> messages = new ArrayList<>();
            try (AsyncAppender appender = async.createAppender()) {
                for (int sequence = 0; sequence < 3; sequence++) {
                    final byte[] message = new byte[Messages.lengthOf(1, sequence, 100)];
                    Messages.encode(message, message.length, 1, sequence);
                    messages.add(message);
                    appender.append(message);
                }
            }
            // what a drainer does with a batch, then dies releasing it: the release limit raised, the first word filled
            final long head = ring.headPosition();
            final long end = ring.tailPosition();
            ring.drainState().writeVolatileIntent(head, end, queue.lastIndex(), messages.size());
            for (final byte[] message : messages) {
                queueAppender.append(message);
            }
            ring.drainState().writeVolatileSnapshot(end, queue.lastIndex(), ring.claimTime(head));
            ring.consumer().consume(end);
            ring.header().writeVolatileReleaseLimit(end);
            ring.buffer().writeVolatileLong(ring.payloadOffset(head) - RecordDescriptor.HEADER_LENGTH, RecordDescriptor.unclaimedWord(1));

            final Drainer drainer = async.createDrainer();
            assertEquals(end, ring.freePosition(), "the release is finished");
            assertEquals(0, drainer.doWork());
            assertTrue(ring.isEmpty());
            final List<Integer> sequences = new ArrayList<>();
            try (ExcerptTailer tailer = queue.createTailer()) {
                while (tailer.read((bytes, offset, length, index) -> sequences.add(Messages.decode(bytes, offset, length, index)[1]))) {
                    // read to the end
                }
            }
            assertEquals(List.of(0, 1, 2), sequences, "each record once");
            assertEquals(0, ring.stats().recoveredRecords(), "the batch was complete: nothing to recover");
            assertEquals(end, ring.freePosition());
        }
    }
}
