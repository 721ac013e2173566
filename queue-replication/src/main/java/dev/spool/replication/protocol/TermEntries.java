package dev.spool.replication.protocol;

import dev.spool.queue.internal.TermHistory;

import java.nio.ByteBuffer;

import static dev.spool.replication.protocol.FrameDescriptor.MAX_TERM_ENTRIES;
import static dev.spool.replication.protocol.FrameDescriptor.TERM_ENTRY_LENGTH;
import static dev.spool.replication.protocol.FrameDescriptor.TERM_ENTRY_START_INDEX_OFFSET;
import static dev.spool.replication.protocol.FrameDescriptor.TERM_ENTRY_TERM_OFFSET;

/**
 * The entries of a term history as START and RESUME carry them ({@link FrameDescriptor}): the codec both flyweights
 * share. Once per handshake, so a history read is a new object.
 */
final class TermEntries {
    private TermEntries() {
    }

    /** Writes the history's entries from {@code position} on. */
    static void write(final ByteBuffer buffer, final int position, final TermHistory history) {
        for (int e = 0; e < history.size(); e++) {
            buffer.putLong(position + e * TERM_ENTRY_LENGTH + TERM_ENTRY_TERM_OFFSET, history.term(e));
            buffer.putLong(position + e * TERM_ENTRY_LENGTH + TERM_ENTRY_START_INDEX_OFFSET, history.startIndex(e));
        }
    }

    /** @return the history of the {@code count} entries from {@code position} on, which {@link #check} passed. */
    static TermHistory read(final ByteBuffer buffer, final int position, final int count) {
        final long[] terms = new long[count];
        final long[] starts = new long[count];
        for (int e = 0; e < count; e++) {
            terms[e] = buffer.getLong(position + e * TERM_ENTRY_LENGTH + TERM_ENTRY_TERM_OFFSET);
            starts[e] = buffer.getLong(position + e * TERM_ENTRY_LENGTH + TERM_ENTRY_START_INDEX_OFFSET);
        }
        return TermHistory.of(terms, starts);
    }

    /**
     * Checks a frame's term entries: a count of 1 to {@link FrameDescriptor#MAX_TERM_ENTRIES}, the frame's length
     * for that count, and entries that make a history.
     *
     * @param frame          the frame's name and sender, for the message: {@code "RESUME frame from host:port"}.
     * @param count          the entry count the frame gives.
     * @param frameLength    the frame's length, before any session MAC.
     * @param expectedLength the length a frame of that count has.
     * @throws FrameException naming the frame, the field and its value.
     */
    static void check(final String frame, final ByteBuffer buffer, final int position, final int count,
                      final int frameLength, final int expectedLength) throws FrameException {
        if (count < 1 || count > MAX_TERM_ENTRIES) {
            throw new FrameException(frame + ": term entry count=" + count + " outside [1, " + MAX_TERM_ENTRIES + "]");
        }
        if (frameLength != expectedLength) {
            throw new FrameException(frame + ": length=" + frameLength + ", expected " + expectedLength + " for "
                    + count + " term entries");
        }
        final long[] terms = new long[count];
        final long[] starts = new long[count];
        for (int e = 0; e < count; e++) {
            terms[e] = buffer.getLong(position + e * TERM_ENTRY_LENGTH + TERM_ENTRY_TERM_OFFSET);
            starts[e] = buffer.getLong(position + e * TERM_ENTRY_LENGTH + TERM_ENTRY_START_INDEX_OFFSET);
        }
        final String problem = TermHistory.problem(terms, starts);
        if (problem != null) {
            throw new FrameException(frame + ": the term history's " + problem);
        }
    }
}
