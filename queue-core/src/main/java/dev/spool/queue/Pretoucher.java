package dev.spool.queue;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;

import java.time.Duration;

/**
 * Does ahead of a queue's writers the work that would otherwise stall them: an Agrona {@link Agent} whose each
 * {@link #doWork()}:
 * <ul>
 * <li>touches every page from the write position of the highest cycle up to
 * {@link SpoolQueueBuilder#pretouchLength(long)} bytes beyond it, so the writer takes no page fault there, and
 * maps (growing the file) the next chunk before the writer needs it;</li>
 * <li>within {@link SpoolQueueBuilder#pretouchLeadTime(Duration)} of the roll, creates the next cycle's file and
 * touches its first pages, so the roll neither creates nor maps a file. The file is not recorded as the highest
 * cycle: tailers, writers and {@code verify} treat it as not started until the first append there.</li>
 * </ul>
 * Run it as any agent: on an {@link AgentRunner} of your own with the idle strategy of your choice, alone or in a
 * {@code CompositeAgent} with other duties; from your own duty cycle (an event loop, a housekeeping thread) every
 * few milliseconds to a second, directly or through an {@code AgentInvoker}; or let
 * {@link SpoolQueue#startPretoucher(Duration)} run it on a daemon thread that sleeps a period when there was
 * nothing to do. It may run in another process than the writers: the pages it touches are then in the page cache,
 * and the writer's faults are minor ones. One pretoucher belongs to one thread at a time. The runner or invoker
 * that closes it releases its mapped files ({@link #onClose()}); so does {@link #close()}.
 * <p>
 * A touch must not race with a writer, in this process or another, that may be writing the same bytes: the write
 * position it starts from is stale as soon as it is read. Writing a zero there could erase an excerpt written in
 * the meantime, and touching only pages beyond the write position plus the longest message would still race with
 * a writer that appends several excerpts meanwhile, and would leave untouched the pages the writer needs next.
 * So a touch reads one int of the page and compare-and-swaps it with itself: the CAS stores only if the int still
 * holds that value, and then stores the same value, so memory never changes whoever writes concurrently; yet it is
 * a write, so the kernel allocates the page (and its block in the file) and maps it writable.
 */
public interface Pretoucher extends Agent, AutoCloseable {
    /** Name of the thread {@link SpoolQueue#startPretoucher(Duration)} starts. */
    String THREAD_NAME = "spool-pretoucher";

    /**
     * Touches the pages ahead of the writer, and creates the next cycle's file if the roll is near. Returns quickly
     * when there is nothing new to do.
     *
     * Never waits for anything but the write lock, held by a writer for the length of one append, when it creates a
     * file; allocates nothing once it follows the highest cycle.
     *
     * @return the work done: pages touched plus files created; 0 if there was nothing to do.
     * @throws SpoolException if closed, or if it runs on the thread of
     *                               {@link SpoolQueue#startPretoucher(Duration)} and this is another thread.
     */
    @Override
    int doWork();

    /** @return {@value #THREAD_NAME}, the name of its thread. */
    @Override
    String roleName();

    /** Stops the thread of {@link SpoolQueue#startPretoucher(Duration)}, if any, and releases the mapped files. */
    @Override
    void close();
}
