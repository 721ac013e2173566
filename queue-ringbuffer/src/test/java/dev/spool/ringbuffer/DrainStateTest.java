package dev.spool.ringbuffer;

import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;
import static org.junit.jupiter.api.Assertions.*;

/** The drained snapshot's seqlock, as a ring reader uses it: a snapshot in the making leaves the last one read. */
class DrainStateTest {
    private final BytesStore<?, Void> header = BytesStore.nativeStoreWithFixedCapacity(RingBufferDescriptor.HEADER_LENGTH);
    private final long address = header.addressForWrite(0);

    @AfterEach
    void release() {
        header.releaseLast();
    }

    @Test
    void shouldKeepTheLastSnapshotReadWhileTheDrainerChangesIt() {
        final DrainState drainer = new DrainState(address);
        final DrainState reader = new DrainState(address);
        assertFalse(reader.hasSnapshot());
        drainer.writeVolatileSnapshot(4096, 41, 1_000);
        assertTrue(reader.readVolatileSnapshot());

        final long sequence = MEMORY.readVolatileLong(address + RingBufferDescriptor.DRAINED_SEQUENCE_OFFSET);
        MEMORY.writeVolatileLong(address + RingBufferDescriptor.DRAINED_SEQUENCE_OFFSET, sequence + 1);
        MEMORY.writeVolatileLong(address + RingBufferDescriptor.DRAINED_POSITION_OFFSET, 8192);
        assertFalse(reader.readVolatileSnapshot(), "the drainer is half-way through the next snapshot");
        assertTrue(reader.hasSnapshot());
        assertEquals(4096, reader.snapshotPosition(), "the last snapshot read, whole");
        assertEquals(41, reader.snapshotIndex());
        assertEquals(1_000, reader.snapshotTime());

        drainer.writeVolatileSnapshot(8192, 80, 2_000);
        assertTrue(reader.readVolatileSnapshot());
        assertEquals(8192, reader.snapshotPosition());
        assertEquals(80, reader.snapshotIndex());
        assertEquals(2_000, reader.snapshotTime());
    }
}
