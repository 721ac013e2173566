package dev.spool.failover;

import dev.spool.failover.RoleMachine.State;
import dev.spool.failover.RoleMachine.Step;
import dev.spool.failover.RoleSnapshot.Connection;
import dev.spool.failover.RoleSnapshot.Latch;
import dev.spool.failover.RoleSnapshot.SinkStatus;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The node's role machine without ZooKeeper: every state against every event, by a table, and thousands of random
 * histories against the rules a node must never break. A failing history prints its seed; run it again with
 * {@code -Dspool.role.seed=<seed>}.
 */
class RoleMachineTest {
    private static final String ME = "a";
    private static final long TERM = 6;
    private static final Candidate MINE = new Candidate(ME, TERM, 100);
    private static final long WARN_AFTER_NS = 4_000_000_000L;

    /** What the node reads, from a quiet cluster of three members (k = 1: two candidates must answer). */
    enum Event {
        QUIET, PRIMARY_SEEN, NEW_TERM_WITH_PRIMARY, TERM_TAKEN, SUSPENDED, SESSION_LOST, CONNECTED_AFTER_LOSS,
        TOO_FEW_CANDIDATES, OTHER_CHOSEN, LATCH_WAITING, LATCH_HELD, REBUILDING, SINK_DIVERGED, SINK_FAILED,
        CAUGHT_UP
    }

    /**
     * state, event, the action it chooses, the state after the step. The machine in each state: a candidate standing
     * in the election after term 6 with (term 6, last index 100), the other candidate b with (6, 50); a follower of
     * term 6 with its sink running; a primary of term 6; the same holding; the same fenced; closed.
     */
    private static final String[] TABLE = {
        "CANDIDATE QUIET JOIN_LATCH CANDIDATE",
        "CANDIDATE PRIMARY_SEEN FOLLOW CANDIDATE",
        "CANDIDATE NEW_TERM_WITH_PRIMARY FOLLOW CANDIDATE",
        "CANDIDATE TERM_TAKEN STAND CANDIDATE",
        "CANDIDATE SUSPENDED IDLE CANDIDATE",
        "CANDIDATE SESSION_LOST IDLE CANDIDATE",
        "CANDIDATE CONNECTED_AFTER_LOSS JOIN_LATCH CANDIDATE",
        "CANDIDATE TOO_FEW_CANDIDATES WAIT CANDIDATE",
        "CANDIDATE OTHER_CHOSEN WAIT CANDIDATE",
        "CANDIDATE LATCH_WAITING AWAIT_LATCH CANDIDATE",
        "CANDIDATE LATCH_HELD PROMOTE CANDIDATE",
        "CANDIDATE REBUILDING WAIT CANDIDATE",
        "CANDIDATE SINK_DIVERGED FOLLOW CANDIDATE",
        "CANDIDATE SINK_FAILED FOLLOW CANDIDATE",
        "CANDIDATE CAUGHT_UP FOLLOW CANDIDATE",

        "FOLLOWER QUIET STAND FOLLOWER",
        "FOLLOWER PRIMARY_SEEN IDLE FOLLOWER",
        "FOLLOWER NEW_TERM_WITH_PRIMARY IDLE FOLLOWER",
        "FOLLOWER TERM_TAKEN STAND FOLLOWER",
        "FOLLOWER SUSPENDED IDLE FOLLOWER",
        "FOLLOWER SESSION_LOST IDLE FOLLOWER",
        "FOLLOWER CONNECTED_AFTER_LOSS STAND FOLLOWER",
        "FOLLOWER TOO_FEW_CANDIDATES STAND FOLLOWER",
        "FOLLOWER OTHER_CHOSEN STAND FOLLOWER",
        "FOLLOWER LATCH_WAITING STAND FOLLOWER",
        "FOLLOWER LATCH_HELD STAND FOLLOWER",
        "FOLLOWER REBUILDING STAND FOLLOWER",
        "FOLLOWER SINK_DIVERGED REBUILD FOLLOWER",
        "FOLLOWER SINK_FAILED RESTART_SINK FOLLOWER",
        "FOLLOWER CAUGHT_UP REBUILT FOLLOWER",

        "PRIMARY QUIET IDLE PRIMARY",
        "PRIMARY PRIMARY_SEEN IDLE PRIMARY",
        "PRIMARY NEW_TERM_WITH_PRIMARY FENCE PRIMARY",
        "PRIMARY TERM_TAKEN FENCE PRIMARY",
        "PRIMARY SUSPENDED HOLD PRIMARY",
        "PRIMARY SESSION_LOST FENCE PRIMARY",
        "PRIMARY CONNECTED_AFTER_LOSS FENCE PRIMARY",
        "PRIMARY TOO_FEW_CANDIDATES IDLE PRIMARY",
        "PRIMARY OTHER_CHOSEN IDLE PRIMARY",
        "PRIMARY LATCH_WAITING IDLE PRIMARY",
        "PRIMARY LATCH_HELD IDLE PRIMARY",
        "PRIMARY REBUILDING IDLE PRIMARY",
        "PRIMARY SINK_DIVERGED IDLE PRIMARY",
        "PRIMARY SINK_FAILED IDLE PRIMARY",
        "PRIMARY CAUGHT_UP IDLE PRIMARY",

        "HOLDING QUIET RELEASE HOLDING",
        "HOLDING PRIMARY_SEEN RELEASE HOLDING",
        "HOLDING NEW_TERM_WITH_PRIMARY RELEASE HOLDING",
        "HOLDING TERM_TAKEN RELEASE HOLDING",
        "HOLDING SUSPENDED IDLE HOLDING",
        "HOLDING SESSION_LOST FENCE HOLDING",
        "HOLDING CONNECTED_AFTER_LOSS FENCE HOLDING",
        "HOLDING TOO_FEW_CANDIDATES RELEASE HOLDING",
        "HOLDING OTHER_CHOSEN RELEASE HOLDING",
        "HOLDING LATCH_WAITING RELEASE HOLDING",
        "HOLDING LATCH_HELD RELEASE HOLDING",
        "HOLDING REBUILDING RELEASE HOLDING",
        "HOLDING SINK_DIVERGED RELEASE HOLDING",
        "HOLDING SINK_FAILED RELEASE HOLDING",
        "HOLDING CAUGHT_UP RELEASE HOLDING",

        "FENCED QUIET STAND CANDIDATE",
        "FENCED PRIMARY_SEEN FOLLOW CANDIDATE",
        "FENCED NEW_TERM_WITH_PRIMARY FOLLOW CANDIDATE",
        "FENCED TERM_TAKEN STAND CANDIDATE",
        "FENCED SUSPENDED IDLE FENCED",
        "FENCED SESSION_LOST IDLE FENCED",
        "FENCED CONNECTED_AFTER_LOSS STAND CANDIDATE",
        "FENCED TOO_FEW_CANDIDATES STAND CANDIDATE",
        "FENCED OTHER_CHOSEN STAND CANDIDATE",
        "FENCED LATCH_WAITING STAND CANDIDATE",
        "FENCED LATCH_HELD STAND CANDIDATE",
        "FENCED REBUILDING STAND CANDIDATE",
        "FENCED SINK_DIVERGED FOLLOW CANDIDATE",
        "FENCED SINK_FAILED FOLLOW CANDIDATE",
        "FENCED CAUGHT_UP FOLLOW CANDIDATE",
    };

    @Test
    void shouldChooseOneActionForEveryStateAndEveryEvent() {
        final Map<State, Map<Event, String>> seen = new EnumMap<>(State.class);
        final List<String> wrong = new ArrayList<>();
        for (final String row : TABLE) {
            final String[] cells = row.split(" ");
            final State state = State.valueOf(cells[0]);
            final Event event = Event.valueOf(cells[1]);
            final RoleAction expected = RoleAction.valueOf(cells[2]);
            final State after = State.valueOf(cells[3]);
            assertTrue(seen.computeIfAbsent(state, s -> new EnumMap<>(Event.class)).put(event, row) == null,
                    "twice in the table: " + row);
            final RoleMachine machine = machineIn(state);
            final Step step = machine.step(snapshot(state, event, 0));
            if (step.action() != expected || machine.state() != after) {
                wrong.add(row + " but got " + step.action() + " " + machine.state());
            }
        }
        for (final Event event : Event.values()) {
            final RoleMachine machine = machineIn(State.CLOSED);
            final Step step = machine.step(snapshot(State.CLOSED, event, 0));
            if (step.action() != RoleAction.IDLE || machine.state() != State.CLOSED) {
                wrong.add("CLOSED " + event + " IDLE CLOSED but got " + step.action() + " " + machine.state());
            }
        }
        assertEquals(List.of(), wrong);
        for (final State state : State.values()) {
            if (state != State.CLOSED) {
                assertEquals(Event.values().length, seen.get(state).size(), "events in the table for " + state);
            }
        }
    }

    @Test
    void shouldTakeTheTermAfterTheClustersAndItsOwn() {
        final RoleMachine machine = machineIn(State.CANDIDATE);
        final Step step = machine.step(snapshot(State.CANDIDATE, Event.LATCH_HELD, 0));
        assertEquals(new Step(RoleAction.PROMOTE, TERM + 1, null), step);
        machine.promoted(step.term(), 0, 1);
        assertEquals(State.PRIMARY, machine.state());
        assertEquals(TERM + 1, machine.term());
        assertEquals(1, machine.promotions());
    }

    @Test
    void shouldCountAndRecordEveryChangeOfState() {
        final RoleMachine machine = machine();
        machine.stood(TERM, MINE, 10);
        assertEquals(0, machine.transitions(), "a node starts as a candidate");
        machine.promoted(TERM + 1, 0, 20);
        machine.held(30);
        machine.released(40);
        machine.fenced("its ZooKeeper session was lost", 1, 50);
        machine.closed(60);
        assertEquals(5, machine.transitions());
        assertEquals("FENCED -> CLOSED at 60 ns: it was closed", machine.lastTransition());
        assertEquals(1, machine.holds());
        machine.followed(TERM + 2, 70);
        machine.stood(TERM + 2, MINE, 80);
        assertEquals(State.CLOSED, machine.state(), "nothing leaves CLOSED");
        assertEquals(5, machine.transitions());
    }

    @Test
    void shouldSayWhyACandidateWaitsAndForgetItOnceItActs() {
        final RoleMachine machine = machineIn(State.CANDIDATE);
        machine.step(snapshot(State.CANDIDATE, Event.TOO_FEW_CANDIDATES, 0));
        assertTrue(machine.waitingFor().startsWith("1 of the 2 candidates the rule needs answered (a)"),
                machine.waitingFor());
        machine.step(snapshot(State.CANDIDATE, Event.OTHER_CHOSEN, 0));
        assertTrue(machine.waitingFor().startsWith("candidate b (term 6, last index 500) is chosen"),
                machine.waitingFor());
        machine.followed(TERM, 1);
        assertEquals(null, machine.waitingFor());
    }

    @Test
    void shouldKeepEveryRuleThroughRandomHistories() {
        final Long fixed = Long.getLong("spool.role.seed");
        final long first = fixed != null ? fixed : System.nanoTime();
        final int histories = fixed != null ? 1 : 5_000;
        final Map<RoleAction, Integer> chosen = new EnumMap<>(RoleAction.class);
        for (int h = 0; h < histories; h++) {
            final long seed = first + h;
            try {
                new History(seed, chosen).run(60);
            } catch (AssertionError e) {
                throw new AssertionError("history of seed " + seed + " (-Dspool.role.seed=" + seed + "): "
                        + e.getMessage(), e);
            }
        }
        if (fixed == null) {
            assertEquals(RoleAction.values().length, chosen.size(), "every action chosen at least once: " + chosen);
        }
    }

    /** One random history: a cluster that changes at random, and a node that carries out what its machine says. */
    private static final class History {
        private static final String[] OTHERS = {"b", "c"};
        private final Random random;
        private final RoleMachine machine = machine();
        private final StringBuilder trace = new StringBuilder();
        private long nowNs;
        private long term = 1;
        private String primary;
        private Connection connection = Connection.CONNECTED;
        private long sessionsLost;
        /** The sessions lost when the node last became primary or fenced: the loss a primary must fence for. */
        private long lostSeen;
        private SinkStatus sink = SinkStatus.NONE;
        private boolean rebuilding;
        private Candidate candidacy;
        private Latch latch = Latch.OUT;
        private final Map<RoleAction, Integer> chosen;
        private boolean closed;

        History(final long seed, final Map<RoleAction, Integer> chosen) {
            this.random = new Random(seed);
            this.chosen = chosen;
        }

        void run(final int steps) {
            for (int i = 0; i < steps; i++) {
                change();
                final RoleSnapshot s = snapshot();
                final State before = machine.state();
                final Step step = machine.step(s);
                trace.append(i).append(": ").append(before).append(' ').append(s).append(" -> ").append(step)
                        .append('\n');
                check(before, s, step);
                chosen.merge(step.action(), 1, Integer::sum);
                carryOut(s, step);
                nowNs += 1 + random.nextInt(2_000_000_000);
            }
        }

        private void change() {
            switch (random.nextInt(12)) {
                case 0:
                    term++;
                    primary = null;
                    break;
                case 1:
                    primary = random.nextInt(4) == 0 ? null : OTHERS[random.nextInt(OTHERS.length)];
                    break;
                case 2:
                    connection = Connection.SUSPENDED;
                    break;
                case 3:
                    connection = Connection.LOST;
                    sessionsLost++;
                    latch = Latch.OUT;
                    break;
                case 4:
                case 5:
                    connection = Connection.CONNECTED;
                    break;
                case 6:
                    if (sink != SinkStatus.NONE) {
                        sink = random.nextBoolean() ? SinkStatus.DIVERGED : SinkStatus.FAILED;
                    }
                    break;
                case 7:
                    rebuilding = random.nextInt(3) == 0;
                    break;
                case 8:
                    if (latch == Latch.WAITING) {
                        latch = Latch.LEADER;
                    }
                    break;
                case 9:
                    if (random.nextInt(40) == 0) {
                        machine.closed(nowNs);
                        closed = true;
                    }
                    break;
                default:
                    break;
            }
        }

        private RoleSnapshot snapshot() {
            final List<Candidate> others = new ArrayList<>();
            for (final String other : OTHERS) {
                if (!other.equals(primary) && random.nextBoolean()) {
                    others.add(new Candidate(other, random.nextInt((int) term + 1), random.nextInt(200) - 1));
                }
            }
            final NavigableMap<Long, Long> promotedAt = new TreeMap<>();
            for (long t = 1; t <= term; t++) {
                promotedAt.put(t, (long) random.nextInt(200) - 1);
            }
            return new RoleSnapshot(nowNs, term, primary, others, promotedAt, connection, sessionsLost, sink,
                    random.nextBoolean(), rebuilding, candidacy, latch);
        }

        private void check(final State before, final RoleSnapshot s, final Step step) {
            final RoleAction action = step.action();
            if (closed) {
                expect(action == RoleAction.IDLE && machine.state() == State.CLOSED, "CLOSED is terminal");
                return;
            }
            final boolean primaryBefore = before == State.PRIMARY || before == State.HOLDING;
            if (primaryBefore && s.sessionsLost() != lostSeen) {
                expect(action == RoleAction.FENCE, "a primary whose session was lost fences");
            }
            if (primaryBefore && s.sessionsLost() == lostSeen && s.connection() != Connection.CONNECTED) {
                expect(action == (before == State.PRIMARY ? RoleAction.HOLD : RoleAction.IDLE),
                        "a suspended primary holds, and fences only once its session is lost");
            }
            if (action == RoleAction.HOLD) {
                expect(before == State.PRIMARY, "only a primary that does not hold yet holds");
            }
            if (action == RoleAction.RELEASE) {
                expect(before == State.HOLDING && s.connection() == Connection.CONNECTED,
                        "only a holding primary with its connection back releases");
            }
            if (action == RoleAction.FENCE) {
                expect(primaryBefore, "only a primary fences");
            }
            switch (action) {
                case FOLLOW: case RESTART_SINK: case REBUILD: case REBUILT: case STAND: case WAIT: case JOIN_LATCH:
                case AWAIT_LATCH: case PROMOTE:
                    expect(!primaryBefore && s.connection() == Connection.CONNECTED
                            && (machine.state() == State.CANDIDATE || machine.state() == State.FOLLOWER),
                            "only a connected candidate or follower acts on the cluster");
                    break;
                default:
                    break;
            }
            if (action == RoleAction.PROMOTE || action == RoleAction.JOIN_LATCH
                    || action == RoleAction.AWAIT_LATCH) {
                expect(!s.rebuilding(), "a rebuilding node never stands to be chosen");
                expect(s.primary() == null && s.candidacy() != null, "only a candidate with no primary is chosen");
                final List<Candidate> all = new ArrayList<>(s.candidates());
                all.add(s.candidacy());
                expect(all.size() >= 3 - 1, "the rule's candidates answered");
                expect(Election.choose(all, s.promotedAt()).nodeId().equals(ME), "the rule chose this node");
            }
            if (action == RoleAction.PROMOTE) {
                expect(s.latch() == Latch.LEADER, "the chosen node holds the latch");
                expect(step.term() > s.term() && step.term() > s.candidacy().term(), "a later term than any seen");
            }
        }

        private void carryOut(final RoleSnapshot s, final Step step) {
            final boolean fails = random.nextInt(10) == 0;
            switch (step.action()) {
                case FOLLOW:
                    if (!fails) {
                        latch = Latch.OUT;
                        sink = SinkStatus.RUNNING;
                        machine.followed(step.term(), nowNs);
                        candidacy = null;
                    }
                    break;
                case REBUILD:
                    rebuilding = true;
                    sink = SinkStatus.RUNNING;
                    break;
                case RESTART_SINK:
                    sink = SinkStatus.RUNNING;
                    break;
                case REBUILT:
                    rebuilding = false;
                    break;
                case STAND:
                    sink = SinkStatus.NONE;
                    candidacy = new Candidate(ME, random.nextInt((int) term + 1), random.nextInt(200) - 1);
                    if (!fails) {
                        machine.stood(step.term(), candidacy, nowNs);
                    }
                    break;
                case WAIT:
                    latch = Latch.OUT;
                    break;
                case JOIN_LATCH:
                    latch = Latch.WAITING;
                    break;
                case PROMOTE:
                    if (!fails) {
                        term = step.term();
                        candidacy = null;
                        lostSeen = sessionsLost;
                        machine.promoted(step.term(), sessionsLost, nowNs);
                    }
                    break;
                case HOLD:
                    machine.held(nowNs);
                    break;
                case RELEASE:
                    machine.released(nowNs);
                    break;
                case FENCE:
                    latch = Latch.OUT;
                    sink = SinkStatus.NONE;
                    lostSeen = sessionsLost;
                    machine.fenced(step.why(), sessionsLost, nowNs);
                    break;
                default:
                    break;
            }
        }

        private void expect(final boolean rule, final String what) {
            if (!rule) {
                fail(what + " is broken; the history:\n" + trace);
            }
        }
    }

    private static RoleMachine machine() {
        return new RoleMachine(ME, 3, 1, WARN_AFTER_NS, "/spool/q/leader", "/spool/q/rebuilding/a");
    }

    /** A machine brought to {@code state} the way a node gets there. */
    private static RoleMachine machineIn(final State state) {
        final RoleMachine machine = machine();
        switch (state) {
            case CANDIDATE:
                machine.stood(TERM, MINE, 0);
                break;
            case FOLLOWER:
                machine.followed(TERM, 0);
                break;
            case PRIMARY:
            case HOLDING:
            case FENCED:
                machine.stood(TERM - 1, MINE, 0);
                machine.promoted(TERM, 0, 0);
                if (state == State.HOLDING) {
                    machine.held(0);
                } else if (state == State.FENCED) {
                    machine.fenced("its ZooKeeper session was lost", 0, 0);
                }
                break;
            default:
                machine.closed(0);
                break;
        }
        assertEquals(state, machine.state());
        return machine;
    }

    /** What a node in {@code state} reads when {@code event} happens. */
    private static RoleSnapshot snapshot(final State state, final Event event, final long nowNs) {
        long term = TERM;
        String primary = null;
        List<Candidate> others = List.of(new Candidate("b", TERM, 50));
        Connection connection = Connection.CONNECTED;
        long sessionsLost = 0;
        SinkStatus sink = state == State.FOLLOWER ? SinkStatus.RUNNING : SinkStatus.NONE;
        boolean caughtUp = false;
        boolean rebuilding = false;
        Latch latch = Latch.OUT;
        switch (event) {
            case PRIMARY_SEEN:
                primary = "b";
                break;
            case NEW_TERM_WITH_PRIMARY:
                term = TERM + 1;
                primary = "b";
                break;
            case TERM_TAKEN:
                term = TERM + 1;
                break;
            case SUSPENDED:
                connection = Connection.SUSPENDED;
                break;
            case SESSION_LOST:
                connection = Connection.LOST;
                sessionsLost = 1;
                break;
            case CONNECTED_AFTER_LOSS:
                sessionsLost = 1;
                break;
            case TOO_FEW_CANDIDATES:
                others = List.of();
                break;
            case OTHER_CHOSEN:
                others = List.of(new Candidate("b", TERM, 500));
                break;
            case LATCH_WAITING:
                latch = Latch.WAITING;
                break;
            case LATCH_HELD:
                latch = Latch.LEADER;
                break;
            case REBUILDING:
                rebuilding = true;
                latch = Latch.LEADER;
                break;
            case SINK_DIVERGED:
                primary = "b";
                sink = state == State.FOLLOWER ? SinkStatus.DIVERGED : sink;
                break;
            case SINK_FAILED:
                primary = "b";
                sink = state == State.FOLLOWER ? SinkStatus.FAILED : sink;
                break;
            case CAUGHT_UP:
                primary = "b";
                rebuilding = true;
                caughtUp = true;
                break;
            default:
                break;
        }
        final NavigableMap<Long, Long> promotedAt = new TreeMap<>();
        promotedAt.put(TERM, 40L);
        return new RoleSnapshot(nowNs, term, primary, others, promotedAt, connection, sessionsLost, sink, caughtUp,
                rebuilding, state == State.CANDIDATE ? MINE : null, latch);
    }
}
