package dev.spool.failover;

import java.util.List;
import java.util.NavigableMap;

/**
 * The election rule, on what the candidates said: no ZooKeeper, no clock, so that a test can prove it on any history.
 * <p>
 * Of {@code n} members, one primary and {@code f = n - 1} followers, an index is committed at ACKED_BY_QUORUM once
 * the primary holds it and {@code k} followers acknowledged it: {@code k + 1} members hold it, so at most
 * {@code f - k} do not, and any {@code f - k + 1} members include one that does. The election therefore waits for
 * that many candidates. Among them it ranks each by the term of its last excerpt, then by its last index, as Raft
 * compares logs: a replica's excerpts are a prefix of the log of the primary of its term (the handshake checked its
 * last excerpt against that primary's), so the candidate ranked first holds every excerpt any of the others holds
 * in the same history, and the excerpts of an older term that the ranking passes over were never acknowledged by a
 * quorum in a later one. The term of a candidate's last excerpt is its queue's term if the candidate holds
 * everything that term's primary held when it was promoted (its last index then, recorded in ZooKeeper with the
 * term); otherwise the latest earlier term whose promotion it reaches: a replica takes a new primary's term when
 * it connects, before it has caught up.
 */
final class Election {
    private Election() {
    }

    /**
     * @param members     the number of members of the cluster, primary included.
     * @param ackQuorum   k: the followers whose acknowledgement commits at ACKED_BY_QUORUM.
     * @return how many candidates must answer before one may be chosen.
     */
    static int candidatesNeeded(final int members, final int ackQuorum) {
        return members - 1 - ackQuorum + 1;
    }

    /**
     * @param candidate   a candidate.
     * @param promotedAt  by term, the last index its primary held when it was promoted.
     * @return the term of the candidate's last excerpt, as far as the election can tell.
     */
    static long lastExcerptTerm(final Candidate candidate, final NavigableMap<Long, Long> promotedAt) {
        long term = candidate.term();
        while (term > 0) {
            final Long inherited = promotedAt.get(term);
            if (inherited == null || candidate.lastIndex() >= inherited) {
                return term;
            }
            final Long earlier = promotedAt.lowerKey(term);
            term = earlier == null ? 0 : earlier;
        }
        return 0;
    }

    /**
     * @param candidates the candidates that answered, each once.
     * @param promotedAt by term, the last index its primary held when it was promoted.
     * @return the candidate to promote: the highest by (term of its last excerpt, last index), ties to the lowest
     * node id, so that every node that reads the same candidates picks the same one.
     */
    static Candidate choose(final List<Candidate> candidates, final NavigableMap<Long, Long> promotedAt) {
        Candidate best = null;
        long bestTerm = -1;
        for (final Candidate candidate : candidates) {
            final long term = lastExcerptTerm(candidate, promotedAt);
            if (best == null || term > bestTerm
                    || term == bestTerm && candidate.lastIndex() > best.lastIndex()
                    || term == bestTerm && candidate.lastIndex() == best.lastIndex()
                    && candidate.nodeId().compareTo(best.nodeId()) < 0) {
                best = candidate;
                bestTerm = term;
            }
        }
        return best;
    }
}
