package dev.spool.queue.tools;

import dev.spool.queue.ExcerptHandler;
import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueue;

import net.openhft.chronicle.bytes.BytesStore;
import org.agrona.concurrent.BackoffIdleStrategy;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Prints a queue's excerpts through an ordinary {@link ExcerptTailer}, one line each: {@code
 * index<TAB>length<TAB>payload}, the payload as a typed call when it is a typed excerpt (with the names of the
 * schema the writer stored in the directory, see {@link TypedSchemas}), else as UTF-8 text when it is printable
 * text, else as {@code 0x} and hex.
 * Following, it waits for new excerpts until asked to stop or interrupted. Unlike the other tools it opens the queue,
 * so it sees exactly what an application's tailer sees, and needs Spool's JVM flags.
 */
final class QueueTail implements ExcerptHandler {
    /** Longest wait between two checks of the stop request. */
    static final long POLL_MILLIS = 100;
    private static final long MIN_PARK_NS = 100_000;
    private static final long MAX_PARK_NS = 10_000_000;

    private final Path directory;
    private final PrintStream out;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private byte[] payload = new byte[256];
    /** The typed excerpts' schemas stored in the queue directory: a typed excerpt prints as text. */
    private final TypedSchemas schemas;
    /** The queue's roll cycle, for printing indices; set once the queue is open. */
    private RollCycle rollCycle;

    QueueTail(final Path directory, final PrintStream out) {
        this.directory = directory;
        this.out = out;
        this.schemas = TypedSchemas.load(directory);
    }

    /**
     * @param from   where to start.
     * @param follow keep waiting for new excerpts.
     * @param stop   polled while following: true ends the wait.
     * @param err    receives the reason for a non-zero result.
     * @return 0, or 1 if {@code from} names no excerpt.
     */
    int tail(final From from, final boolean follow, final BooleanSupplier stop, final PrintStream err) {
        boolean interrupted = false;
        // a person reads tail -f: 10 ms of latency is nothing to them, while spinning costs a core shared with others
        try (SpoolQueue queue = SpoolQueue.builder(directory).readOnly()
                .idleStrategy(() -> new BackoffIdleStrategy(0, 0, MIN_PARK_NS, MAX_PARK_NS)).open();
             ExcerptTailer tailer = queue.createTailer()) {
            rollCycle = queue.rollCycle();
            switch (from.kind()) {
                case START -> tailer.toStart();
                case END -> tailer.toEnd();
                case TIME -> tailer.moveToTime(from.time());
                case INDEX, CYCLE_SEQUENCE -> {
                    final long index = from.index(rollCycle);
                    if (!tailer.moveToIndex(index)) {
                        err.println("spool: " + From.noExcerpt(index, rollCycle, directory, queue.firstIndex(),
                                queue.lastIndex()));
                        return 1;
                    }
                }
            }
            while (!stop.getAsBoolean()) {
                if (tailer.read(this)) {
                    continue;
                }
                if (!follow) {
                    break;
                }
                out.flush();
                // a stop request or interrupt ends the wait within one poll; a closed output ends it too
                if (out.checkError()) {
                    break;
                }
                try {
                    tailer.await(POLL_MILLIS, TimeUnit.MILLISECONDS);
                } catch (InterruptedException e) {
                    // closing the queue below must not see the interrupt: it is restored once the files are closed
                    interrupted = true;
                    break;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
        out.flush();
        return 0;
    }

    @Override
    public void onExcerpt(final BytesStore<?, ?> bytes, final long offset, final int length, final long index) {
        if (payload.length < length) {
            payload = new byte[Math.max(length, payload.length * 2)];
        }
        bytes.read(offset, payload, 0, length);
        out.append(IndexFormat.format(index, rollCycle)).append('\t').append(Integer.toString(length)).append('\t');
        final String typed = schemas.format(payload, length);
        final String text = typed != null ? typed : printable(payload, length);
        if (text != null) {
            out.append(text);
        } else {
            out.append("0x").append(HexFormat.of().formatHex(payload, 0, length));
        }
        out.append(System.lineSeparator());
    }

    /** @return the bytes as text if they are UTF-8 with no control characters (a tab or newline would break the line), else null. */
    private String printable(final byte[] bytes, final int length) {
        final CharBuffer chars;
        try {
            chars = utf8.reset().decode(ByteBuffer.wrap(bytes, 0, length));
        } catch (CharacterCodingException e) {
            return null;
        }
        for (int i = 0; i < chars.length(); i++) {
            if (Character.isISOControl(chars.charAt(i))) {
                return null;
            }
        }
        return chars.toString();
    }
}
