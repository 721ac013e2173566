package dev.spool.queue.internal;

import java.lang.reflect.Field;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

import static net.openhft.chronicle.core.UnsafeMemory.MEMORY;

/**
 * Not API: the CRC32C of bytes at an address (mapped memory, a ring, a native buffer) with the JDK's intrinsic
 * ({@link CRC32C}, a hardware instruction on x86 and ARM) and no allocation. {@code CRC32C} takes native memory only
 * through a direct {@link ByteBuffer}; one view buffer is pointed at each range in turn, by writing its address
 * field, as Agrona's {@code UnsafeBuffer} does. No JVM flag beyond Chronicle's is needed. One instance belongs to
 * one thread.
 */
public final class Crc32cOfMemory {
    private static final long ADDRESS_OFFSET;
    private static final long CAPACITY_OFFSET;

    static {
        try {
            final Field address = Buffer.class.getDeclaredField("address");
            final Field capacity = Buffer.class.getDeclaredField("capacity");
            ADDRESS_OFFSET = MEMORY.objectFieldOffset(address);
            CAPACITY_OFFSET = MEMORY.objectFieldOffset(capacity);
        } catch (NoSuchFieldException e) {
            throw new ExceptionInInitializerError("java.nio.Buffer has no " + e.getMessage()
                    + " field on this JVM: checksums of native memory are not available");
        }
    }

    private final CRC32C crc = new CRC32C();
    /**
     * A direct buffer whose address and capacity this class sets; the memory it was allocated with is freed by its
     * cleaner, which keeps that address apart.
     */
    private final ByteBuffer view = ByteBuffer.allocateDirect(0);

    /** A new calculator, for one thread. */
    public Crc32cOfMemory() {
        MEMORY.writeInt(view, CAPACITY_OFFSET, Integer.MAX_VALUE);
    }

    /**
     * @param address where the bytes start.
     * @param length  how many bytes.
     * @return their CRC32C.
     */
    public int of(final long address, final int length) {
        MEMORY.writeLong(view, ADDRESS_OFFSET, address);
        view.limit(length).position(0);
        crc.reset();
        crc.update(view);
        return (int) crc.getValue();
    }
}
