package dev.spool.queue.tools;

import dev.spool.queue.ExcerptTailer;
import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;

import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/**
 * Where {@code dump} and {@code tail} start: the one grammar of {@code --from}, so that both commands take the same
 * forms, and what {@code tail} prints is what either takes back.
 * <ul>
 * <li>{@code start}: before the first excerpt; {@code end}: after the last one;</li>
 * <li>an index: hexadecimal after {@code 0x} (as Spool prints indices), or decimal;</li>
 * <li>{@code <cycle>:<sequence>}, both decimal (as in {@code (cycle 19614 seq 17)});</li>
 * <li>a time in ISO-8601 with a zone or offset, {@code 2026-11-24T14:30:00Z}: the excerpts appended from then on,
 * which needs a queue created with {@code indexTimes(true)} (see {@link ExcerptTailer#moveToTime(Instant)}).</li>
 * </ul>
 *
 * @param kind     which form.
 * @param index    the index, for {@link Kind#INDEX}.
 * @param cycle    the cycle, for {@link Kind#CYCLE_SEQUENCE}.
 * @param sequence the sequence, for {@link Kind#CYCLE_SEQUENCE}.
 * @param time     the time, for {@link Kind#TIME}.
 */
record From(Kind kind, long index, long cycle, long sequence, Instant time) {
    /** What the text of {@code --from} named. */
    enum Kind { START, END, INDEX, CYCLE_SEQUENCE, TIME }

    /** The forms, for usage text and errors. */
    static final String FORMS = "start, end, an index (0x<hex> or decimal), <cycle>:<seq>, or an ISO-8601 time such as "
            + "2026-11-24T14:30:00Z";

    static final From START = new From(Kind.START, -1, -1, -1, null);

    /**
     * @param text one of the forms above.
     * @return what it names.
     * @throws IllegalArgumentException naming the text and the forms, if it is none of them.
     */
    static From parse(final String text) {
        if (text.equals("start")) {
            return START;
        }
        if (text.equals("end")) {
            return new From(Kind.END, -1, -1, -1, null);
        }
        try {
            if (text.startsWith("0x") || text.startsWith("0X")) {
                return index(Long.parseLong(text.substring(2), 16), text);
            }
            final int colon = text.indexOf(':');
            if (text.indexOf('T') > 0) {
                return new From(Kind.TIME, -1, -1, -1, Instant.parse(text));
            }
            if (colon > 0) {
                final long cycle = Long.parseLong(text.substring(0, colon));
                final long sequence = Long.parseLong(text.substring(colon + 1));
                if (cycle >= 0 && sequence >= 0) {
                    return new From(Kind.CYCLE_SEQUENCE, -1, cycle, sequence, null);
                }
            } else {
                return index(Long.parseLong(text), text);
            }
        } catch (NumberFormatException | DateTimeParseException e) {
            // reported below, with the text and the forms
        }
        throw new IllegalArgumentException("bad start '" + text + "': expected " + FORMS);
    }

    private static From index(final long index, final String text) {
        if (index < 0) {
            throw new IllegalArgumentException("bad index '" + text + "': an index is not negative");
        }
        return new From(Kind.INDEX, index, -1, -1, null);
    }

    /**
     * @param rollCycle the queue's roll cycle, which splits an index into cycle and sequence.
     * @return the index that {@link Kind#INDEX} or {@link Kind#CYCLE_SEQUENCE} names.
     * @throws IllegalArgumentException if the sequence does not fit the roll cycle's sequence bits.
     */
    long index(final RollCycle rollCycle) {
        if (kind == Kind.INDEX) {
            return index;
        }
        final long resolved = rollCycle.toIndex(cycle, sequence);
        if (rollCycle.toCycle(resolved) != cycle || rollCycle.toSequence(resolved) != sequence) {
            throw new IllegalArgumentException("bad start '" + cycle + ":" + sequence + "': roll cycle " + rollCycle
                    + " has no such cycle and sequence");
        }
        return resolved;
    }

    /**
     * @param index     the index asked for, which holds no excerpt.
     * @param rollCycle the queue's roll cycle.
     * @param directory the queue.
     * @param first     the queue's first index, or negative if it is empty.
     * @param last      the queue's last index.
     * @return the message that says so, naming the first and last indices that do hold one.
     */
    static String noExcerpt(final long index, final RollCycle rollCycle, final Path directory, final long first,
                            final long last) {
        return "no excerpt has index " + IndexFormat.format(index, rollCycle) + " in " + directory + ": "
                + (first < 0 ? "the queue is empty" : "the first is " + IndexFormat.format(first, rollCycle)
                + ", the last is " + IndexFormat.format(last, rollCycle));
    }
}
