package dev.spool.importer;

import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolQueueBuilder;

import org.agrona.concurrent.EpochClock;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemEpochClock;
import org.agrona.concurrent.SystemNanoClock;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Copies a Chronicle Queue into a Spool queue, once ({@link #run()}) or live ({@link #startBridge(IdleStrategy)},
 * {@link #invokedBridge()}):
 * <pre>{@code
 * ImportReport report = ChronicleImport.from(Path.of("/data/chronicle/orders"))
 *         .into(Path.of("/data/spool/orders"))
 *         .run();
 * }</pre>
 * The Chronicle Queue is opened read-only and read with Chronicle Queue's own tailer; every data document becomes one
 * Spool excerpt with the document's bytes, in order. Metadata documents (Chronicle's cycle headers and index blocks,
 * and any metadata an application wrote) are skipped and counted. The documents of each Chronicle cycle go into the
 * Spool cycle that holds the Chronicle cycle's start; a new Spool queue gets the Spool roll cycle nearest Chronicle's
 * (or {@link #rollCycle(RollCycle) a given one}), Chronicle's epoch and, unless told otherwise, index times:
 * Chronicle records no time per document, so each index entry records when the document was read, capped at the end
 * of its Chronicle cycle, which {@code moveToTime} can rely on never to be early.
 * <p>
 * An import resumes: the Spool queue's own content says how far an earlier run got (its last excerpt is a known
 * document of the Chronicle cycles that map to its cycle; see docs/architecture.md, "Import from Chronicle Queue"),
 * so a run killed at any point, with kill -9 too, and started again writes nothing twice and skips nothing. It checks the last excerpt against the Chronicle document it maps to, and refuses a Spool queue
 * that is not an import of this Chronicle Queue. Only one run may write a Spool queue at a time; nothing else may
 * append to it while one does.
 */
public final class ChronicleImport {
    /** Documents copied between two checks of the bridge's stop and lag. */
    static final int BATCH = 1024;

    private final Path chronicleDirectory;
    private Path spoolDirectory;
    private RollCycle rollCycle;
    private boolean indexTimes = true;
    private Consumer<SpoolQueueBuilder> settings = builder -> { };
    private EpochClock epochClock = SystemEpochClock.INSTANCE;
    private NanoClock nanoClock = SystemNanoClock.INSTANCE;
    private Class<?> events;

    private ChronicleImport(final Path chronicleDirectory) {
        this.chronicleDirectory = Objects.requireNonNull(chronicleDirectory, "chronicleDirectory");
    }

    /**
     * @param chronicleDirectory the Chronicle Queue's directory, which holds its {@code metadata.cq4t}.
     * @return an import from it.
     */
    public static ChronicleImport from(final Path chronicleDirectory) {
        return new ChronicleImport(chronicleDirectory);
    }

    /**
     * @param spoolDirectory the Spool queue to write: created if absent; if present, an earlier import of the same
     *                       Chronicle Queue, which this one resumes.
     * @return this import.
     */
    public ChronicleImport into(final Path spoolDirectory) {
        this.spoolDirectory = Objects.requireNonNull(spoolDirectory, "spoolDirectory");
        return this;
    }

    /**
     * @param rollCycle the roll cycle of a new Spool queue; an existing one must have it. Default: the one nearest
     *                  the Chronicle Queue's by length (a five-minute cycle maps to minutes, a half-hourly one to hours).
     * @return this import.
     */
    public ChronicleImport rollCycle(final RollCycle rollCycle) {
        this.rollCycle = Objects.requireNonNull(rollCycle, "rollCycle");
        return this;
    }

    /**
     * @param indexTimes false to create the Spool queue without index times; default true. An existing queue keeps
     *                   what it has.
     * @return this import.
     */
    public ChronicleImport indexTimes(final boolean indexTimes) {
        this.indexTimes = indexTimes;
        return this;
    }

    /**
     * @param settings applied to the Spool queue's builder after the import's own settings (roll cycle, epoch, index
     *                 times), for the others: checksums, chunk length, file modes, sync policy. The epoch clock is
     *                 the import's own: it gives each index entry its time.
     * @return this import.
     */
    public ChronicleImport spoolSettings(final Consumer<SpoolQueueBuilder> settings) {
        this.settings = Objects.requireNonNull(settings, "settings");
        return this;
    }

    /**
     * Maps each document, a call that Chronicle's method writer of {@code events} wrote, to a Spool typed event: it
     * is read with Chronicle's method reader and written with the writer the {@code spool-processor} generated for
     * the same interface, one excerpt per document, which Spool's method readers, {@code dump} and {@code tail}
     * read as calls. Every data document must be exactly one call of {@code events}: the import stops, naming the
     * document, at the first that is not (a resumed run stops there too). Chronicle's method reader reads no
     * metadata document, so the report counts none skipped. Default: each document's bytes as they are.
     *
     * @param events an interface annotated {@link dev.spool.queue.typed.Events}, processed by the
     *               {@code spool-processor}, whose methods Chronicle's method writer wrote.
     * @param <T>    the interface.
     * @return this import.
     */
    public <T> ChronicleImport typed(final Class<T> events) {
        this.events = Objects.requireNonNull(events, "events");
        return this;
    }

    /**
     * @param epochClock the wall clock the time of each index entry is read from; default the system's.
     * @return this import.
     */
    public ChronicleImport epochClock(final EpochClock epochClock) {
        this.epochClock = Objects.requireNonNull(epochClock, "epochClock");
        return this;
    }

    /**
     * @param nanoClock the clock the report's time and the bridge's lag checks are measured with; default the
     *                  system's.
     * @return this import.
     */
    public ChronicleImport nanoClock(final NanoClock nanoClock) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        return this;
    }

    /**
     * Copies every data document the Chronicle Queue holds when each read is made, from where an earlier run
     * stopped, and returns when there is none left to read. A writer still appending to the Chronicle Queue may
     * add more after that; {@link #startBridge} follows it.
     *
     * @return what the run did.
     * @throws dev.spool.queue.SpoolException if there is no Chronicle Queue at the directory, the Spool queue is
     *                                        not an import of it, or a document cannot be written (the message
     *                                        names both indices); what was written before stays, and a new run
     *                                        resumes after it.
     */
    public ImportReport run() {
        final long start = nanoClock.nanoTime();
        final ImportCounters counters = new ImportCounters();
        try (QueuePair queues = open(counters)) {
            while (queues.session().copy(BATCH) > 0) {
                // each batch copies what is there; the loop ends at the first read that finds nothing
                continue;
            }
        }
        return new ImportReport(chronicleDirectory, spoolDirectory, counters,
                Duration.ofNanos(nanoClock.nanoTime() - start));
    }

    /**
     * Starts a bridge on a thread of its own: it resumes as {@link #run()} does, then copies each document the
     * Chronicle Queue's writer appends, across its rolls and restarts, until closed, idling with {@code idle} when
     * there is nothing to copy. Its progress and lag are in JMX ({@link BridgeMXBean}).
     *
     * @param idle how the bridge's thread waits when there is nothing to copy.
     * @return the running bridge; close it to stop it.
     */
    public ChronicleBridge startBridge(final IdleStrategy idle) {
        return new ChronicleBridge(open(new ImportCounters()), chronicleDirectory, spoolDirectory, nanoClock,
                Objects.requireNonNull(idle, "idle"));
    }

    /**
     * A bridge whose passes the caller runs, in its own duty cycle, through {@link ChronicleBridge#invoke()}.
     *
     * @return the bridge, resumed; close it when done.
     */
    public ChronicleBridge invokedBridge() {
        return new ChronicleBridge(open(new ImportCounters()), chronicleDirectory, spoolDirectory, nanoClock, null);
    }

    private QueuePair open(final ImportCounters counters) {
        if (spoolDirectory == null) {
            throw new IllegalStateException("no Spool queue to import " + chronicleDirectory + " into: call into(...)");
        }
        return new QueuePair(chronicleDirectory, spoolDirectory, rollCycle, indexTimes, settings, epochClock, counters,
                events);
    }
}
