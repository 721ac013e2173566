package dev.spool.queue.internal;

import dev.spool.queue.ExcerptAppender;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

class DoorbellTest extends SpoolTestBase {
    private static final byte[] MESSAGE = {1, 2, 3};

    @Test
    void shouldRingAnArmedDoorbellOnceAfterAnAppendAndNeverADisarmedOrClosedOne() {
        final AtomicInteger first = new AtomicInteger();
        final AtomicInteger second = new AtomicInteger();
        try (SpoolQueue queue = SpoolQueue.builder(tempDir).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender()) {
            final Doorbell one = queue.unwrap(QueueInternals.class).appendDoorbell(first::incrementAndGet);
            final Doorbell two = queue.unwrap(QueueInternals.class).appendDoorbell(second::incrementAndGet);
            appender.append(MESSAGE);
            assertEquals(0, first.get(), "not armed: no wake");
            one.arm();
            two.arm();
            appender.append(MESSAGE);
            assertEquals(1, first.get(), "armed: woken after the append");
            assertEquals(1, second.get());
            appender.append(MESSAGE);
            assertEquals(1, first.get(), "a ring disarms: one wake per arming");
            one.arm();
            one.disarm();
            appender.append(MESSAGE);
            assertEquals(1, first.get(), "disarmed after its sleep: no wake");
            one.arm();
            one.close();
            two.arm();
            appender.append(MESSAGE);
            assertEquals(1, first.get(), "closed: never woken again");
            assertEquals(2, second.get(), "the other doorbell still rings");
            two.close();
        }
    }

    @Test
    void shouldWriteTheAppendEvenWhenAWakeActionFails() {
        expectWarning("wake action failed");
        try (SpoolQueue queue = SpoolQueue.builder(tempDir).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             Doorbell failing = queue.unwrap(QueueInternals.class).appendDoorbell(() -> {
                 throw new IllegalStateException("wake failed");
             })) {
            failing.arm();
            final long index = appender.append(MESSAGE);
            assertEquals(index, queue.lastIndex(), "the append is written and returned its index");
        }
    }

    @Test
    void shouldRingTheAckDoorbellWhenAnAckIsRecordedButNotOnAppend() {
        final AtomicInteger woken = new AtomicInteger();
        try (SpoolQueue queue = SpoolQueue.builder(tempDir).chunkLength(1 << 20).openOrCreate();
             ExcerptAppender appender = queue.createAppender();
             Doorbell acked = queue.unwrap(QueueInternals.class).ackDoorbell(woken::incrementAndGet)) {
            acked.arm();
            final long index = appender.append(MESSAGE);
            assertEquals(0, woken.get(), "an append is not an ack");
            queue.unwrap(QueueInternals.class).recordAcked(index);
            assertEquals(1, woken.get());
            assertEquals(index, queue.unwrap(QueueInternals.class).lastAckedIndex());
        }
    }
}
