package dev.spool.queue.tools;

import dev.spool.queue.IndexFormat;
import dev.spool.queue.RollCycle;
import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;
import dev.spool.queue.internal.QueueRole;

import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;

import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET;
import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUM_LENGTH;
import static dev.spool.queue.format.ExcerptDescriptor.CHECKSUM_OFFSET;
import static dev.spool.queue.format.ExcerptDescriptor.HEADER_LENGTH;
import static dev.spool.queue.format.ExcerptDescriptor.SYNC_MARKER_INDEX_OFFSET;
import static dev.spool.queue.format.ExcerptDescriptor.SYNC_MARKER_TIME_OFFSET;
import static dev.spool.queue.format.ExcerptDescriptor.describe;

/**
 * Prints a queue as it lies on disk: the metadata file's fields, then each cycle file's header, root index and
 * every excerpt with its position, header, kind, index and payload, and a typed excerpt also as text
 * ({@link TypedSchemas}). It reads the files with plain reads, like
 * {@link QueueVerifier}, so it shows a damaged queue up to the damage, and marks the damage with {@code !!}.
 */
final class QueueDumper {
    /** Payload bytes shown per excerpt without {@code --full}. */
    static final int PREVIEW_LENGTH = 64;
    private static final int BYTES_PER_LINE = 16;
    private static final String INDENT = "  ";

    private final QueueFiles queue;
    private final CRC32C crc = new CRC32C();
    private final PrintStream out;
    private final long fromIndex;
    private final long limit;
    private final boolean full;
    /** The typed excerpts' schemas stored in the queue directory. */
    private final TypedSchemas schemas;
    private long printed;
    private boolean stoppedAtLimit;

    /**
     * @param fromIndex the first data excerpt to print, or -1 for all.
     * @param limit     the most excerpts to print.
     * @param full      print whole payloads, not their first {@value #PREVIEW_LENGTH} bytes.
     */
    QueueDumper(final QueueFiles queue, final PrintStream out, final long fromIndex, final long limit, final boolean full) {
        this.queue = queue;
        this.out = out;
        this.fromIndex = fromIndex;
        this.limit = limit;
        this.full = full;
        this.schemas = TypedSchemas.load(queue.directory());
    }

    /** @return true if every file could be walked to its end. */
    boolean dump() {
        final RollCycle rollCycle = queue.rollCycle();
        dumpMetadata(rollCycle);
        if (rollCycle == null) {
            out.println("!! cannot list cycle files: roll cycle id=" + queue.readInt(MetadataDescriptor.ROLL_CYCLE_OFFSET)
                    + " is unknown");
            return false;
        }
        final List<Path> ignored = new ArrayList<>();
        final List<QueueFiles.CycleFileName> cycles = queue.cycleFiles(rollCycle, ignored);
        for (final Path path : ignored) {
            out.println("ignored file " + path);
        }
        boolean whole = true;
        final long fromCycle = fromIndex < 0 ? -1 : rollCycle.toCycle(fromIndex);
        for (final QueueFiles.CycleFileName cycle : cycles) {
            if (cycle.cycle() < fromCycle) {
                continue;
            }
            if (printed == limit) {
                out.println("(limit of " + limit + " excerpts reached)");
                return whole;
            }
            final long fromSequence = cycle.cycle() == fromCycle ? rollCycle.toSequence(fromIndex) : 0;
            whole &= dumpCycle(rollCycle, cycle, fromSequence);
            if (stoppedAtLimit) {
                out.println("(limit of " + limit + " excerpts reached)");
                return whole;
            }
        }
        return whole;
    }

    private void dumpMetadata(final RollCycle rollCycle) {
        out.println("queue " + queue.directory());
        out.printf("metadata %s length=%d magic=0x%08x version=%d%n", queue.metadataPath(), queue.metadataLength(),
                queue.readInt(MetadataDescriptor.MAGIC_OFFSET), queue.readInt(MetadataDescriptor.VERSION_OFFSET));
        field("queue id", String.valueOf(queue.queueId()));
        field("roll cycle", (rollCycle == null ? "unknown" : rollCycle.name()) + " (id "
                + queue.readInt(MetadataDescriptor.ROLL_CYCLE_OFFSET) + ")");
        field("epoch", queue.epochMillis() + " (" + Instant.ofEpochMilli(queue.epochMillis()) + ")");
        if (rollCycle != null) {
            field("rolls", queue.calendar(rollCycle).toString());
        }
        final long created = queue.readLong(MetadataDescriptor.CREATED_OFFSET);
        field("created", created + " (" + Instant.ofEpochMilli(created) + ")");
        field("index spacing", String.valueOf(queue.indexSpacing()));
        field("index block entries", String.valueOf(queue.indexBlockEntries()));
        field("max message length", String.valueOf(queue.maxMessageLength()));
        field("chunk length", String.valueOf(queue.chunkLength()));
        field("features", String.format("0x%x%s%s", queue.features(), queue.checksums() ? " (crc32c: every data excerpt"
                + " carries a CRC32C of its body)" : "", (queue.features() & MetadataDescriptor.FEATURE_PUBLISHER_IDS) != 0
                ? " (publisher ids: every data excerpt carries its publisher's id and sequence)" : ""));
        field("highest cycle", cycleName(rollCycle, queue.highestCycle()));
        field("lowest cycle", cycleName(rollCycle, queue.lowestCycle()));
        final long lock = queue.writeLock();
        final int slot = MetadataDescriptor.lockSlot(lock);
        field("write lock", lock == 0 ? "free" : String.format("0x%016x: held by process slot %d, pid %d", lock, slot,
                queue.processSlotPid(slot)));
        field("last synced index", String.valueOf(queue.readLong(MetadataDescriptor.LAST_SYNCED_INDEX_OFFSET)));
        field("last acked index", String.valueOf(queue.readLong(MetadataDescriptor.LAST_ACKED_INDEX_OFFSET)));
        // stored plus one, 0 = none
        field("quorum acked index", String.valueOf(queue.readLong(MetadataDescriptor.QUORUM_ACKED_INDEX_OFFSET) - 1));
        field("schema generation", String.valueOf(queue.readLong(MetadataDescriptor.SCHEMA_GENERATION_OFFSET)));
        field("term", String.valueOf(queue.readLong(MetadataDescriptor.TERM_OFFSET)));
        final int role = queue.readInt(MetadataDescriptor.ROLE_OFFSET);
        field("role", role >= MetadataDescriptor.ROLE_PRIMARY && role <= MetadataDescriptor.ROLE_FENCED
                ? QueueRole.of(role) + (role == MetadataDescriptor.ROLE_FENCED
                ? " by term " + queue.readLong(MetadataDescriptor.FENCED_BY_TERM_OFFSET) : "")
                : "!! unknown role " + role);
        final List<QueueFiles.NamedTailer> tailers = queue.namedTailers();
        field("named tailers", String.valueOf(tailers.size()));
        for (final QueueFiles.NamedTailer tailer : tailers) {
            out.println(INDENT + INDENT + (tailer.name() == null ? "!! entry " + tailer.entry() + " has name length="
                    + tailer.nameLength() : "'" + tailer.name() + "'") + " last read index="
                    + IndexFormat.format(tailer.lastReadIndex(), rollCycle));
        }
    }

    private void field(final String name, final String value) {
        out.printf("%s%-20s %s%n", INDENT, name, value);
    }

    private String cycleName(final RollCycle rollCycle, final long cycle) {
        return cycle < 0 || rollCycle == null ? String.valueOf(cycle) : cycle + " (" + queue.calendar(rollCycle).fileName(cycle) + ")";
    }

    /** @return true if the walk reached the end of the excerpts. */
    private boolean dumpCycle(final RollCycle rollCycle, final QueueFiles.CycleFileName name, final long fromSequence) {
        try (ReadOnlyFile file = ReadOnlyFile.open(name.path())) {
            out.println("cycle file " + name.path() + " cycle=" + name.cycle() + " length=" + file.length());
            if (file.length() < CycleDescriptor.DATA_OFFSET) {
                out.println(INDENT + "!! truncated: the header and root index alone need " + CycleDescriptor.DATA_OFFSET + " bytes");
                return false;
            }
            final int entries = file.readInt(CycleDescriptor.INDEX_BLOCK_ENTRIES_OFFSET);
            out.printf("%sheader magic=0x%08x version=%d cycle=%d roll cycle id=%d index spacing=%d index block entries=%d"
                            + " root entries=%d write position=%d write sequence=%d%n", INDENT,
                    file.readInt(CycleDescriptor.MAGIC_OFFSET), file.readInt(CycleDescriptor.VERSION_OFFSET),
                    file.readLong(CycleDescriptor.CYCLE_OFFSET), file.readInt(CycleDescriptor.ROLL_CYCLE_OFFSET),
                    file.readInt(CycleDescriptor.INDEX_SPACING_OFFSET), entries,
                    file.readInt(CycleDescriptor.ROOT_ENTRIES_OFFSET), file.readLong(CycleDescriptor.WRITE_POSITION_OFFSET),
                    file.readLong(CycleDescriptor.WRITE_SEQUENCE_OFFSET));
            final Map<Long, Integer> blocks = dumpRoot(file);
            final boolean checksums = queue.checksums();
            final int prefixLength = queue.bodyPrefixLength();
            final int maxLength = queue.maxDataLength();
            final int maxEntries = MetadataDescriptor.MAX_INDEX_BLOCK_ENTRIES;
            final boolean entriesOk = QueueFiles.isPowerOfTwo(entries) && entries <= maxEntries;
            final ExcerptScanner scanner = new ExcerptScanner(file, maxLength, entriesOk ? entries : maxEntries);
            final long cycleBase = rollCycle.toIndex(name.cycle(), 0);
            boolean started = fromSequence == 0;
            ExcerptScanner.Kind kind;
            for (kind = scanner.next(); !kind.isEnd(); kind = scanner.next()) {
                started |= kind == ExcerptScanner.Kind.DATA && scanner.sequence() >= fromSequence;
                if (!started) {
                    continue;
                }
                if (printed == limit) {
                    stoppedAtLimit = true;
                    return true;
                }
                printed++;
                final StringBuilder line = excerptLine(scanner, kind);
                if (kind == ExcerptScanner.Kind.DATA) {
                    line.append(" index=").append(IndexFormat.format(cycleBase | scanner.sequence(), rollCycle));
                } else if (kind == ExcerptScanner.Kind.INDEX_BLOCK) {
                    final Integer block = blocks.get(scanner.position());
                    line.append(block == null ? " (not in the root index)" : " block=" + block);
                } else if (kind == ExcerptScanner.Kind.SYNC_MARKER) {
                    line.append(" synced index=").append(IndexFormat.format(file.readLong(scanner.position() + SYNC_MARKER_INDEX_OFFSET), rollCycle))
                            .append(" at ").append(Instant.ofEpochMilli(file.readLong(scanner.position() + SYNC_MARKER_TIME_OFFSET)));
                } else if (kind == ExcerptScanner.Kind.UNKNOWN_METADATA) {
                    line.append(" type=").append(scanner.metadataType());
                }
                if (kind == ExcerptScanner.Kind.DATA && prefixLength != 0) {
                    // the body's prefix is the queue's own: the payload alone is shown, and checked if checksummed
                    prefixedLine(file, scanner, line, checksums, prefixLength);
                    payload(file, scanner.position() + HEADER_LENGTH + prefixLength,
                            Math.max(0, scanner.length() - prefixLength));
                    continue;
                }
                out.println(line.append(" length=").append(scanner.length()));
                payload(file, scanner.position() + HEADER_LENGTH, scanner.length());
                if (kind == ExcerptScanner.Kind.DATA) {
                    typed(file, scanner.position() + HEADER_LENGTH, scanner.length());
                }
            }
            out.println(endLine(file, scanner, kind));
            return !isDamage(kind);
        }
    }

    /**
     * Prints the line of a data excerpt whose body has a prefix: its payload length and, if checksummed, its CRC32C
     * as stored and as computed.
     */
    private void prefixedLine(final ReadOnlyFile file, final ExcerptScanner scanner, final StringBuilder line,
                              final boolean checksums, final int prefixLength) {
        final int length = scanner.length() - prefixLength;
        if (length < 1) {
            out.println(line.append(" length=").append(scanner.length()).append(" !! too short for ")
                    .append(prefixLength).append(" bytes of prefix and a payload"));
            return;
        }
        if (!checksums) {
            out.println(line.append(" length=").append(length));
            return;
        }
        final int stored = file.readInt(scanner.position() + CHECKSUM_OFFSET);
        crc.reset();
        crc.update(file.read(scanner.position() + CHECKSUMMED_PAYLOAD_OFFSET, scanner.length() - CHECKSUM_LENGTH));
        final int computed = (int) crc.getValue();
        line.append(" length=").append(length).append(String.format(" crc32c=0x%08x", stored));
        out.println(stored == computed ? line.append(" ok")
                : line.append(String.format(" !! MISMATCH: the payload gives 0x%08x", computed)));
    }

    private static boolean isDamage(final ExcerptScanner.Kind kind) {
        return kind != ExcerptScanner.Kind.EMPTY && kind != ExcerptScanner.Kind.END_OF_CYCLE
                && kind != ExcerptScanner.Kind.IN_PROGRESS;
    }

    private static StringBuilder excerptLine(final ExcerptScanner scanner, final ExcerptScanner.Kind kind) {
        return new StringBuilder(INDENT).append("position=").append(scanner.position())
                .append(String.format(" header=0x%08x ", scanner.header())).append(kind.label());
    }

    private static String endLine(final ReadOnlyFile file, final ExcerptScanner scanner, final ExcerptScanner.Kind kind) {
        final String start = excerptLine(scanner, kind).toString();
        final int header = scanner.header();
        return switch (kind) {
            case EMPTY -> start + ": end of the excerpts";
            case END_OF_CYCLE -> start + ": the cycle has ended";
            case IN_PROGRESS -> start + " length=" + scanner.length() + ": torn tail, a claim never committed (a writer died"
                    + " mid-claim, or is writing now)";
            case NO_HEADER -> INDENT + "!! position=" + scanner.position() + ": the file ends (length=" + file.length()
                    + ") where a header should be";
            default -> INDENT + "!! " + start.substring(INDENT.length()) + " (" + describe(header) + ", limit " + scanner.limit()
                    + ", file length " + file.length() + "): cannot walk past it";
        };
    }

    /** @return the position of each allocated index block, by block number, after printing the root index. */
    private Map<Long, Integer> dumpRoot(final ReadOnlyFile file) {
        final ByteBuffer root = file.read(CycleDescriptor.ROOT_OFFSET, CycleDescriptor.ROOT_LENGTH);
        final Map<Long, Integer> blocks = new HashMap<>();
        final StringBuilder line = new StringBuilder();
        for (int block = 0; block < CycleDescriptor.ROOT_ENTRIES; block++) {
            final long position = root.getLong(block * Long.BYTES);
            if (position != 0) {
                blocks.put(position, block);
                line.append(' ').append(block).append('=').append(position);
            }
        }
        out.println(INDENT + "root index: " + blocks.size() + (blocks.size() == 1 ? " block" : " blocks")
                + (blocks.isEmpty() ? "" : ":" + line));
        return blocks;
    }

    private void payload(final ReadOnlyFile file, final long position, final int length) {
        final int shown = full ? length : Math.min(length, PREVIEW_LENGTH);
        final byte[] bytes = new byte[shown];
        file.read(position, bytes, 0, shown);
        hex(out, INDENT + INDENT, bytes, shown);
        if (shown < length) {
            out.println(INDENT + INDENT + "... " + (length - shown) + " more bytes (--full shows them)");
        }
    }

    /** Prints a typed excerpt as text, whole whatever {@code --full} says; nothing for another payload. */
    private void typed(final ReadOnlyFile file, final long position, final int length) {
        final byte[] bytes = new byte[length];
        file.read(position, bytes, 0, length);
        final String text = schemas.format(bytes, length);
        if (text != null) {
            out.println(INDENT + INDENT + "typed " + text);
        }
    }

    /** Prints {@code length} bytes as lines of offset, hex and ASCII. */
    static void hex(final PrintStream out, final String indent, final byte[] bytes, final int length) {
        final StringBuilder line = new StringBuilder();
        for (int offset = 0; offset < length; offset += BYTES_PER_LINE) {
            line.setLength(0);
            line.append(indent).append(String.format("%04x ", offset));
            final int end = Math.min(length, offset + BYTES_PER_LINE);
            for (int i = offset; i < offset + BYTES_PER_LINE; i++) {
                if (i - offset == BYTES_PER_LINE / 2) {
                    line.append(' ');
                }
                line.append(i < end ? String.format(" %02x", bytes[i] & 0xFF) : "   ");
            }
            line.append("  |");
            for (int i = offset; i < end; i++) {
                final int b = bytes[i] & 0xFF;
                line.append(b >= 0x20 && b < 0x7F ? (char) b : '.');
            }
            out.println(line.append('|'));
        }
    }
}
