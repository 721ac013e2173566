package dev.spool.benchmarks.latency;

import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Where {@code jlbh --pin} or {@code --cores} puts the threads that must never wait for a CPU: JLBH's sender, the
 * reader and a variant's drainer, each on a CPU of its own, with at least one CPU the JVM may use left for everything
 * else (the kernel's work, the JIT compiler, the garbage collector, the monitor thread, a second process). A layout
 * that this machine cannot give is refused before any worker starts, naming what was asked and what there is.
 * <p>
 * The sender and the reader pin themselves with OpenHFT's {@code Affinity.setAffinity}; the drainer is pinned as an
 * application pins it, with {@code AsyncQueueBuilder.pinDrainer(true)}, whose {@code AffinityLock} takes a CPU of
 * those that {@code affinity.reserved} names: the worker JVM gets {@link #reservedAffinity()}, the drainer's CPU alone.
 *
 * @param sender  the CPU of JLBH's sender thread.
 * @param reader  the CPU of the reader thread.
 * @param drainer the CPU of a ring variant's drainer thread.
 */
record CoreLayout(int sender, int reader, int drainer) {
    /** CPUs a pinned run needs: one per pinned thread, and one for the rest. */
    static final int CPUS_NEEDED = 4;
    /** The option that names the CPUs, and the worker's option that passes them on. */
    static final String CORES_OPTION = "--cores";
    /** The option that lets the launcher choose them. */
    static final String PIN_OPTION = "--pin";

    /**
     * @param cores {@code SENDER,READER,DRAINER}: three distinct CPU numbers.
     * @return the layout.
     * @throws IllegalArgumentException naming what is wrong with it.
     */
    static CoreLayout parse(final String cores) {
        final String[] parts = cores.split(",", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException(CORES_OPTION + " takes three CPU numbers, SENDER,READER,DRAINER; was '"
                    + cores + "'");
        }
        final int[] cpus = new int[3];
        for (int i = 0; i < 3; i++) {
            try {
                cpus[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(CORES_OPTION + " takes CPU numbers, not '" + parts[i] + "' in '"
                        + cores + "'", e);
            }
            if (cpus[i] < 0) {
                throw new IllegalArgumentException(CORES_OPTION + " takes CPU numbers from 0, not " + cpus[i]);
            }
        }
        if (cpus[0] == cpus[1] || cpus[0] == cpus[2] || cpus[1] == cpus[2]) {
            throw new IllegalArgumentException(CORES_OPTION + " " + cores + ": the sender, the reader and the drainer"
                    + " each need a CPU of their own");
        }
        return new CoreLayout(cpus[0], cpus[1], cpus[2]);
    }

    /**
     * The layout of {@code --pin}: the three highest CPUs the kernel isolated, if it isolated three or more (the
     * JVM runs elsewhere); else the three highest CPUs the JVM may use, so that the lowest, where the kernel handles
     * most interrupts by default, stays for everything else.
     *
     * @param machine the CPUs there are.
     * @return the layout.
     * @throws IllegalArgumentException if the machine has fewer than {@value #CPUS_NEEDED} CPUs for the JVM.
     */
    static CoreLayout choose(final Cpus machine) {
        final BitSet isolated = (BitSet) machine.isolated().clone();
        isolated.andNot(machine.allowed());
        final BitSet pinnable = machine.pinnable();
        if (isolated.cardinality() < 3 && pinnable.cardinality() < CPUS_NEEDED) {
            throw new IllegalArgumentException(PIN_OPTION + " needs " + CPUS_NEEDED + " CPUs: one each for the sender,"
                    + " the reader and the drainer, and one for everything else (the kernel, the JIT compiler, the"
                    + " garbage collector); " + machine + ". Run it on a machine with " + CPUS_NEEDED + " or more");
        }
        final BitSet allowed = isolated.cardinality() >= 3 ? isolated : pinnable;
        final int drainer = allowed.previousSetBit(allowed.length() - 1);
        final int reader = allowed.previousSetBit(drainer - 1);
        final int sender = allowed.previousSetBit(reader - 1);
        return new CoreLayout(sender, reader, drainer);
    }

    /**
     * @param machine the CPUs there are.
     * @return this layout, if the machine can give it.
     * @throws IllegalArgumentException naming the CPUs asked for and those there are, if it cannot.
     */
    CoreLayout check(final Cpus machine) {
        final String asked = CORES_OPTION + " " + option();
        final BitSet pinnable = machine.pinnable();
        for (final int cpu : new int[]{sender, reader, drainer}) {
            if (!pinnable.get(cpu)) {
                throw new IllegalArgumentException(asked + ": CPU " + cpu + " is not one this JVM may run on; "
                        + machine);
            }
        }
        if (pinnable.cardinality() < CPUS_NEEDED) {
            throw new IllegalArgumentException(asked + " leaves no CPU for everything else (the kernel, the JIT"
                    + " compiler, the garbage collector): a pinned run needs " + CPUS_NEEDED + "; " + machine);
        }
        if (drainer == 0) {
            throw new IllegalArgumentException(asked + ": the drainer cannot have CPU 0, which OpenHFT's AffinityLock"
                    + " (what pinDrainer uses) never takes; " + machine);
        }
        return this;
    }

    /** @return {@code SENDER,READER,DRAINER}, as {@link #parse} reads it. */
    String option() {
        return sender + "," + reader + "," + drainer;
    }

    /** @return the worker JVM's flag that leaves AffinityLock the drainer's CPU alone to take. */
    String reservedAffinity() {
        return "-Daffinity.reserved=" + BigInteger.ONE.shiftLeft(drainer).toString(16);
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "sender on CPU %d, reader on CPU %d, drainer on CPU %d", sender, reader,
                drainer);
    }

    /**
     * The CPUs of this machine that a JVM sees.
     *
     * @param available what {@code Runtime.availableProcessors()} says.
     * @param allowed   the CPUs the JVM runs on (its affinity mask, e.g. narrowed by {@code taskset} or a cpuset).
     * @param isolated  the CPUs the kernel isolated ({@code isolcpus}): no process runs there unless pinned there.
     */
    record Cpus(int available, BitSet allowed, BitSet isolated) {
        private static final String ALLOWED_LIST = "Cpus_allowed_list:";

        /**
         * @param available what {@code Runtime.availableProcessors()} says.
         * @param allowed   the CPUs the JVM runs on; none isolated.
         */
        Cpus(final int available, final BitSet allowed) {
            this(available, allowed, new BitSet());
        }

        /**
         * @return this JVM's CPUs: from {@code /proc/self/status} and {@code /sys/devices/system/cpu/isolated} on
         * Linux, else CPUs 0 to available - 1.
         */
        static Cpus ofThisJvm() {
            final int available = Runtime.getRuntime().availableProcessors();
            final BitSet isolated = parseList(firstLine(Paths.get("/sys/devices/system/cpu/isolated"), ""));
            final String allowed = firstLine(Paths.get("/proc/self/status"), ALLOWED_LIST);
            if (allowed.isEmpty()) {
                final BitSet all = new BitSet();
                all.set(0, available);
                return new Cpus(available, all, isolated);
            }
            return new Cpus(available, parseList(allowed), isolated);
        }

        /** @return the CPUs a thread of this JVM can be pinned to: those it runs on and those the kernel isolated. */
        BitSet pinnable() {
            final BitSet pinnable = (BitSet) allowed.clone();
            pinnable.or(isolated);
            return pinnable;
        }

        /** @return what follows {@code prefix} on the file's first line that starts with it, or "" if none. */
        private static String firstLine(final Path file, final String prefix) {
            if (!Files.isReadable(file)) {
                return "";
            }
            try (Stream<String> lines = Files.lines(file)) {
                final List<String> found = lines.filter(line -> line.startsWith(prefix)).limit(1).toList();
                return found.isEmpty() ? "" : found.get(0).substring(prefix.length()).trim();
            } catch (IOException e) {
                // the JVM's count of its CPUs is still its own view of them
                return "";
            }
        }

        /**
         * @param list a Linux CPU list, e.g. {@code 0-3,8,10-11}.
         * @return the CPUs it names.
         */
        static BitSet parseList(final String list) {
            final BitSet cpus = new BitSet();
            for (final String range : list.split(",")) {
                if (range.isBlank()) {
                    continue;
                }
                final int dash = range.indexOf('-');
                final int from = Integer.parseInt(range.substring(0, dash < 0 ? range.length() : dash).trim());
                final int to = dash < 0 ? from : Integer.parseInt(range.substring(dash + 1).trim());
                cpus.set(from, to + 1);
            }
            return cpus;
        }

        @Override
        public String toString() {
            return "this machine has " + available + " (Runtime.availableProcessors()) and the JVM may run on "
                    + allowed.cardinality() + " (CPUs " + list(allowed) + ")"
                    + (isolated.isEmpty() ? "" : ", isolated CPUs " + list(isolated));
        }

        /** @return the CPUs as a Linux CPU list, e.g. {@code 0-3,8}. */
        private static String list(final BitSet cpus) {
            final StringBuilder list = new StringBuilder();
            for (int cpu = cpus.nextSetBit(0); cpu >= 0; ) {
                final int end = cpus.nextClearBit(cpu) - 1;
                list.append(list.length() == 0 ? "" : ",").append(cpu).append(end > cpu ? "-" + end : "");
                cpu = cpus.nextSetBit(end + 1);
            }
            return list.toString();
        }
    }
}
