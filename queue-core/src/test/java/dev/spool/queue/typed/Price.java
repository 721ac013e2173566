package dev.spool.queue.typed;

import net.openhft.chronicle.bytes.BytesIn;
import net.openhft.chronicle.bytes.BytesMarshallable;
import net.openhft.chronicle.bytes.BytesOut;

/** A message the application encodes by hand: mantissa and exponent as a long and a byte. */
final class Price implements BytesMarshallable {
    long mantissa;
    byte exponent;

    @Override
    public void writeMarshallable(final BytesOut<?> bytes) {
        bytes.writeLong(mantissa).writeByte(exponent);
    }

    @Override
    public void readMarshallable(final BytesIn<?> bytes) {
        mantissa = bytes.readLong();
        exponent = bytes.readByte();
    }
}
