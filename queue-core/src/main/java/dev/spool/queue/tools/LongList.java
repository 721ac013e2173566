package dev.spool.queue.tools;

import java.util.Arrays;

/** A growable list of longs, in the order added. */
final class LongList {
    private long[] values = new long[64];
    private int size;

    void add(final long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    long get(final int i) {
        return values[i];
    }

    int size() {
        return size;
    }

    long[] array() {
        return values;
    }
}
