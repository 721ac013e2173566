package dev.spool.failover;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The election rule on histories built by hand: the chosen candidate holds every index an ack quorum acknowledged,
 * whichever {@code n - k} members answer.
 */
class ElectionTest {
    @Test
    void shouldNeedEnoughCandidatesThatOneHoldsEveryQuorumAckedIndex() {
        assertEquals(1, Election.candidatesNeeded(2, 1));
        assertEquals(2, Election.candidatesNeeded(3, 1));
        assertEquals(1, Election.candidatesNeeded(3, 2));
        assertEquals(3, Election.candidatesNeeded(5, 2));
    }

    @Test
    void shouldChooseTheMostAdvancedOfOneTermAndBreakTiesByNodeId() {
        final NavigableMap<Long, Long> promoted = new TreeMap<>();
        promoted.put(1L, -1L);
        assertEquals("b", Election.choose(List.of(new Candidate("a", 1, 10), new Candidate("b", 1, 12)), promoted)
                .nodeId());
        assertEquals("a", Election.choose(List.of(new Candidate("b", 1, 12), new Candidate("a", 1, 12)), promoted)
                .nodeId());
    }

    @Test
    void shouldPreferTheLaterTermOverALongerTailOfAnEarlierOne() {
        final NavigableMap<Long, Long> promoted = new TreeMap<>();
        promoted.put(1L, -1L);
        promoted.put(2L, 20L);
        // "old" was primary of term 1 and wrote 21..40 that nobody acknowledged; "new" follows term 2's primary
        final Candidate old = new Candidate("old", 1, 40);
        final Candidate current = new Candidate("new", 2, 25);
        assertEquals("new", Election.choose(List.of(old, current), promoted).nodeId());
    }

    @Test
    void shouldRankAReplicaThatTookATermBeforeCatchingUpByTheTermOfItsLastExcerpt() {
        final NavigableMap<Long, Long> promoted = new TreeMap<>();
        promoted.put(1L, -1L);
        promoted.put(2L, 50L);
        // "late" took term 2 when its source connected, but holds only up to 30: its last excerpt is of term 1
        final Candidate late = new Candidate("late", 2, 30);
        final Candidate holder = new Candidate("holder", 1, 50);
        assertEquals(1, Election.lastExcerptTerm(late, promoted));
        assertEquals("holder", Election.choose(List.of(late, holder), promoted).nodeId());
    }

    /**
     * Random histories of one primary and f followers in one term, each follower holding a prefix of the primary's
     * log: whatever n - k of them answer, the chosen one holds the index k followers acknowledged.
     */
    @Test
    void shouldAlwaysChooseACandidateHoldingTheQuorumAckedIndex() {
        final Random random = new Random(42);
        for (int trial = 0; trial < 10_000; trial++) {
            final int followers = 1 + random.nextInt(5);
            final int k = 1 + random.nextInt(followers);
            final long[] last = new long[followers];
            for (int f = 0; f < followers; f++) {
                last[f] = random.nextInt(100) - 1;
            }
            final long[] sorted = last.clone();
            java.util.Arrays.sort(sorted);
            final long quorumAcked = sorted[followers - k];
            final List<Candidate> all = new ArrayList<>();
            for (int f = 0; f < followers; f++) {
                all.add(new Candidate("n" + f, 1, last[f]));
            }
            java.util.Collections.shuffle(all, random);
            final int needed = Election.candidatesNeeded(followers + 1, k);
            final NavigableMap<Long, Long> promoted = new TreeMap<>();
            promoted.put(1L, -1L);
            final Candidate chosen = Election.choose(all.subList(0, needed), promoted);
            assertTrue(chosen.lastIndex() >= quorumAcked, "trial " + trial + ": chose " + chosen + " of " + all
                    + " with " + needed + " answering, but index " + quorumAcked + " was acked by " + k);
        }
    }
}
