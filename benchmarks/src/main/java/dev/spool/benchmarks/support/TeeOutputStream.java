package dev.spool.benchmarks.support;

import java.io.IOException;
import java.io.OutputStream;

/** Writes to two streams: the console and a result file. Closing it flushes both and closes neither. */
public final class TeeOutputStream extends OutputStream {
    private final OutputStream first;
    private final OutputStream second;

    /**
     * @param first  written to first, e.g. the console.
     * @param second written to second, e.g. the result file.
     */
    public TeeOutputStream(final OutputStream first, final OutputStream second) {
        this.first = first;
        this.second = second;
    }

    @Override
    public void write(final int b) throws IOException {
        first.write(b);
        second.write(b);
    }

    @Override
    public void write(final byte[] bytes, final int offset, final int length) throws IOException {
        first.write(bytes, offset, length);
        second.write(bytes, offset, length);
    }

    @Override
    public void flush() throws IOException {
        first.flush();
        second.flush();
    }

    @Override
    public void close() throws IOException {
        flush();
    }
}
