package dev.spool.benchmarks.latency.variants;

import java.nio.file.Path;

/**
 * One way of handing a timestamp from JLBH's thread to a reader thread: the thing a JLBH experiment measures end
 * to end. JLBH's thread calls {@link #send(long)} with the time the message was due; the reader thread spins on
 * {@link #receive()} and, when it returns a time, samples {@code System.nanoTime()} minus it.
 * <p>
 * One instance runs one experiment in its own JVM ({@code JlbhMain}), so the JIT's profile of the send and
 * receive call sites sees one implementation. The calls come in this order: {@link #init} on JLBH's thread,
 * {@link #openReader()} on the reader thread, then {@code send} and {@code receive} concurrently, then
 * {@link #closeReader()} on the reader thread once it stops, then {@link #close()} on JLBH's thread.
 * {@code send} and {@code receive} must not allocate. A new variant is a class implementing this, added to
 * {@link LatencyVariants#ALL} and named in the {@code LatencyExperiment}s that run it.
 */
public interface LatencyVariant {
    /** What {@link #receive()} returns when there is no message. */
    long NOTHING = Long.MIN_VALUE;

    /** @return the name used on the command line and in result files, lower case. */
    String name();

    /** @return one line on what is sent, how, and where. */
    String description();

    /**
     * @return how many threads busy-spin while this variant runs: JLBH's sender, which busy-waits between sends,
     * and the reader, plus any thread of the variant's own that spins (a drainer); the
     * result files state it, because on 2 CPUs a third spinning thread is a cause of tail latency.
     */
    default int spinningThreads() {
        return 2;
    }

    /**
     * A batch variant sends several messages per JLBH iteration: JLBH runs at the rate divided by this, for the
     * messages of a run (and of the warm-up) divided by this, rounded up so that every batch is whole;
     * {@link #send(long)} writes this many messages
     * back to back, each carrying the batch's due time, and {@link #receive()} returns a start time only for a
     * batch's last message ({@link #NOTHING} for the others). So JLBH still gets one sample per iteration, as it
     * counts them, and each sample is the latency of a whole batch: what its slowest message saw.
     *
     * @return messages per {@link #send(long)}, at least 1; 1 unless the variant batches.
     */
    default int messagesPerSend() {
        return 1;
    }

    /**
     * Tells the variant the rate of the run before {@link #init}, for a variant that paces work of its own by it
     * (a second process writing as much as the others do); the default ignores it.
     *
     * @param messagesPerSecond the messages per second JLBH sends.
     */
    default void rate(final int messagesPerSecond) {
        // most variants do only what the sender and the reader ask
    }

    /**
     * Asks the variant, before {@link #init}, to pin the thread of its own that works beside the sender and the
     * reader (a drainer) to a core of its own, as the {@code jlbh --pin} command pins the sender and the reader:
     * through OpenHFT's {@code AffinityLock}, which takes the CPU that the worker JVM's {@code affinity.reserved}
     * names. The default ignores it: a variant with no such thread has nothing to pin.
     */
    default void pinBackgroundThread() {
        // no thread of the variant's own to pin
    }

    /**
     * Creates the files and buffers, and the sending side; JLBH's thread.
     *
     * @param directory an empty directory for the variant's files, deleted after {@link #close()}.
     * @param length    bytes per message, at least {@link Long#BYTES}: the first eight hold the start time.
     */
    void init(Path directory, int length);

    /** Creates the receiving side, positioned before the first message; the reader thread, before any send. */
    void openReader();

    /**
     * Sends one message, or one batch of {@link #messagesPerSend()}; JLBH's thread.
     *
     * @param startTimeNs the time the message (or batch) was due, by {@code System.nanoTime()}.
     */
    void send(long startTimeNs);

    /**
     * Reads the next message if there is one; the reader thread.
     *
     * @return the start time it carries, or {@link #NOTHING}; for a batch variant, {@link #NOTHING} also when
     * the message read is not its batch's last.
     */
    long receive();

    /** Releases the receiving side; the reader thread, after its last {@link #receive()}. */
    void closeReader();

    /** Releases the sending side and every file; JLBH's thread, after the reader thread has ended. */
    void close();
}
