package dev.spool.queue.internal;

import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.format.TermHistoryDescriptor;

import java.util.Arrays;

/**
 * Not API: which term wrote which indices of a queue, as its term history file persists it
 * ({@link TermHistoryDescriptor}). Entry {@code e} says that term {@link #term(int) term(e)} wrote the indices from
 * {@link #startIndex(int) startIndex(e)} to the next entry's start, exclusive; the last entry's term every index from
 * its start on. A term whose start equals the next entry's covers nothing. Below the first entry's start the history
 * says nothing (its older entries were dropped). Immutable; made at promotions and handshakes, so allocation is fine.
 * <p>
 * Two copies of one queue hold the same excerpt at every index to which their histories give the same term: one
 * primary writes each term, and a replica takes a term's excerpts only from that term's primary, after the replication
 * handshake checked this very rule for the indices the replica held already. {@link #firstDifference} finds where two
 * histories stop agreeing.
 */
public final class TermHistory {
    private final long[] terms;
    private final long[] starts;

    private TermHistory(final long[] terms, final long[] starts) {
        this.terms = terms;
        this.starts = starts;
    }

    /**
     * @param term a term.
     * @return the history of one entry, {@code term} from index 0: a queue's history before it has a file.
     */
    public static TermHistory of(final long term) {
        return new TermHistory(new long[] {term}, new long[] {0});
    }

    /**
     * @param terms  each entry's term.
     * @param starts each entry's first index.
     * @return the history of those entries, which the arrays are copied into.
     * @throws IllegalArgumentException with {@link #problem}'s reason if they are no history.
     */
    public static TermHistory of(final long[] terms, final long[] starts) {
        final String problem = problem(terms, starts);
        if (problem != null) {
            throw new IllegalArgumentException(problem);
        }
        return new TermHistory(terms.clone(), starts.clone());
    }

    /**
     * @param terms  each entry's term.
     * @param starts each entry's first index.
     * @return why the entries are no history (a count outside 1 to {@link TermHistoryDescriptor#MAX_ENTRIES}, a term
     * outside 0 to {@link MetadataDescriptor#MAX_TERM} or not above the one before, a negative start or one below the
     * one before), naming the entry and its values; null if they are one.
     */
    public static String problem(final long[] terms, final long[] starts) {
        if (terms.length != starts.length || terms.length < 1 || terms.length > TermHistoryDescriptor.MAX_ENTRIES) {
            return "entry count=" + terms.length + " outside [1, " + TermHistoryDescriptor.MAX_ENTRIES + "]";
        }
        for (int e = 0; e < terms.length; e++) {
            if (terms[e] < 0 || terms[e] > MetadataDescriptor.MAX_TERM || e > 0 && terms[e] <= terms[e - 1]) {
                return "entry " + e + ": term=" + terms[e] + " is not above the previous entry's and within [0, "
                        + MetadataDescriptor.MAX_TERM + "]";
            }
            if (starts[e] < 0 || e > 0 && starts[e] < starts[e - 1]) {
                return "entry " + e + ": start index=" + starts[e] + " is negative or below the previous entry's";
            }
        }
        return null;
    }

    /** @return the number of entries, at least 1. */
    public int size() {
        return terms.length;
    }

    /**
     * @param entry an entry, 0 to {@link #size()} - 1.
     * @return its term.
     */
    public long term(final int entry) {
        return terms[entry];
    }

    /**
     * @param entry an entry, 0 to {@link #size()} - 1.
     * @return the first index of its term.
     */
    public long startIndex(final int entry) {
        return starts[entry];
    }

    /** @return the last entry's term: the queue's term. */
    public long lastTerm() {
        return terms[terms.length - 1];
    }

    /**
     * @param index an index.
     * @return the term that wrote it (or would write it, past the queue's last index), -1 below the first entry's start.
     */
    public long termAt(final long index) {
        for (int e = terms.length - 1; e >= 0; e--) {
            if (starts[e] <= index) {
                return terms[e];
            }
        }
        return -1;
    }

    /**
     * The history of a queue made the primary of {@code term} after its last index: the entries whose start lies past
     * {@code startIndex} covered none of the queue's excerpts (a primary's terms it took at a handshake and never
     * received an excerpt of) and go; the oldest entry goes too if the history is full.
     *
     * @param term       the new term; must exceed {@link #lastTerm()}.
     * @param startIndex its first index: one more than the queue's last index, 0 if it is empty.
     * @return the longer history.
     * @throws IllegalArgumentException if the term is not later or the start is negative.
     */
    public TermHistory append(final long term, final long startIndex) {
        if (term <= lastTerm() || startIndex < 0) {
            throw new IllegalArgumentException("term " + term + " from index " + startIndex + " cannot follow " + this);
        }
        int kept = terms.length;
        while (kept > 0 && starts[kept - 1] > startIndex) {
            kept--;
        }
        final int dropped = kept == TermHistoryDescriptor.MAX_ENTRIES ? 1 : 0;
        final long[] newTerms = new long[kept - dropped + 1];
        final long[] newStarts = new long[newTerms.length];
        System.arraycopy(terms, dropped, newTerms, 0, kept - dropped);
        System.arraycopy(starts, dropped, newStarts, 0, kept - dropped);
        newTerms[newTerms.length - 1] = term;
        newStarts[newStarts.length - 1] = startIndex;
        return of(newTerms, newStarts);
    }

    /**
     * The first index at which the two histories give different terms, so that two copies of the queue with these
     * histories may hold different excerpts there and from there on: only where a term starts can that change.
     * Indices below either history's first start are not compared.
     *
     * @param other another copy's history.
     * @return the first index where the terms differ, {@link Long#MAX_VALUE} if they never do.
     */
    public long firstDifference(final TermHistory other) {
        final long from = Math.max(starts[0], other.starts[0]);
        final long[] boundaries = new long[starts.length + other.starts.length + 1];
        boundaries[0] = from;
        System.arraycopy(starts, 0, boundaries, 1, starts.length);
        System.arraycopy(other.starts, 0, boundaries, 1 + starts.length, other.starts.length);
        Arrays.sort(boundaries);
        for (final long index : boundaries) {
            if (index >= from && termAt(index) != other.termAt(index)) {
                return index;
            }
        }
        return Long.MAX_VALUE;
    }

    @Override
    public boolean equals(final Object other) {
        return other instanceof TermHistory && Arrays.equals(terms, ((TermHistory) other).terms)
                && Arrays.equals(starts, ((TermHistory) other).starts);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(terms) + Arrays.hashCode(starts);
    }

    /** @return the entries, as {@code [term 0 from 0, term 3 from 4294967396]}. */
    @Override
    public String toString() {
        final StringBuilder text = new StringBuilder("[");
        for (int e = 0; e < terms.length; e++) {
            text.append(e == 0 ? "" : ", ").append("term ").append(terms[e]).append(" from ").append(starts[e]);
        }
        return text.append(']').toString();
    }
}
