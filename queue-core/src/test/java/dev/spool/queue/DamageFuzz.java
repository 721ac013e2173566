package dev.spool.queue;

import dev.spool.queue.format.CycleDescriptor;
import dev.spool.queue.format.ExcerptDescriptor;
import dev.spool.queue.format.MetadataDescriptor;

import net.openhft.chronicle.core.io.AbstractReferenceCounted;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.agrona.concurrent.EpochClock;

/**
 * The cases of {@link DamageFuzzTest}, run in a child JVM so that a crash of the JVM (SIGBUS, SIGSEGV) fails the
 * test instead of killing the test runner. Each case copies an undamaged queue, flips random bits in one of its
 * files or truncates it, then reads every excerpt forwards, backwards and with {@code moveToIndex}, and appends
 * once. Each of those must return the original bytes or throw a {@link SpoolException} whose message names the
 * damaged queue's file; an append that succeeds must not hide an excerpt that was readable before it.
 * <p>
 * Without checksums, payloads carry no checksum, and neither do the low bits of a header's length that stay within
 * its 8-byte alignment (a length of 17 instead of 16 moves no boundary): a flip there changes what that one excerpt
 * reads as, and nothing else. Such an excerpt is "touched" and may come back different; every other excerpt must not.
 * <p>
 * In the {@code payload} mode the template has checksums, and each case flips one to three bits of one excerpt's
 * CRC32C field and payload: every read of that excerpt (forward, backward, after {@code moveToIndex}) must throw a
 * {@link CorruptQueueException} naming its file and header position, never return its bytes; every other excerpt
 * must read back exactly; and {@code verify} must report it with its position and index and exit with 1.
 * <p>
 * In the {@code repair} mode the template (checksums again) stands for the replica, whose files equal the primary's,
 * and the damaged copy for the primary: {@code spool repair --copy} must restore every flip inside an excerpt's CRC32C
 * field and payload to the replica's bytes exactly, write nothing but the replica's bytes whatever was damaged, and
 * write nothing at all when it refuses or proves nothing.
 * <p>
 * {@code template work seed firstCase cases clockMillis [payload|repair]}: prints {@code CASE n} before case {@code n},
 * {@code PASS n <what was damaged>} or {@code FAIL n <what was damaged>: <why>} after it, and {@code DONE} at the end.
 */
final class DamageFuzz {
    /**
     * An excerpt of the undamaged queue: where its header is, what its payload holds, and where the index entry of its
     * span of {@code indexSpacing} excerpts is.
     */
    record Excerpt(long index, Path file, long headerPosition, byte[] payload, long indexEntryPosition) {
    }

    /** What a case did to the copy: bits flipped at positions of one file, or the file cut short. */
    record Damage(Path file, long[] positions, long truncatedTo) {
        @Override
        public String toString() {
            return truncatedTo >= 0 ? "truncated " + file.getFileName() + " to " + truncatedTo
                    : "flipped bits at " + Arrays.toString(positions) + " of " + file.getFileName();
        }

        /** @return true if a flipped byte lies in {@code [from, to)} of {@code inFile}. */
        boolean flipped(final Path inFile, final long from, final long to) {
            if (truncatedTo >= 0 || !file.getFileName().equals(inFile.getFileName())) {
                return false;
            }
            for (final long position : positions) {
                if (position >= from && position < to) {
                    return true;
                }
            }
            return false;
        }
    }

    private final Path template;
    private final Path work;
    private final long clockMillis;
    private final TreeMap<Long, Excerpt> excerpts = new TreeMap<>();
    /** Where a payload starts from its excerpt's header in the template: after the CRC32C if it has checksums. */
    private int payloadOffset = ExcerptDescriptor.HEADER_LENGTH;

    private DamageFuzz(final Path template, final Path work, final long clockMillis) {
        this.template = template;
        this.work = work;
        this.clockMillis = clockMillis;
    }

    public static void main(final String[] args) throws IOException {
        final DamageFuzz fuzz = new DamageFuzz(Path.of(args[0]), Path.of(args[1]), Long.parseLong(args[5]));
        final long seed = Long.parseLong(args[2]);
        final String mode = args.length > 6 ? args[6] : "structure";
        final boolean payloadFlips = mode.equals("payload");
        final boolean repair = mode.equals("repair");
        final int first = Integer.parseInt(args[3]);
        final int cases = Integer.parseInt(args[4]);
        fuzz.learnTemplate();
        AbstractReferenceCounted.enableReferenceTracing();
        for (int n = first; n < first + cases; n++) {
            System.out.println("CASE " + n);
            deleteRecursively(fuzz.work);
            final SplittableRandom random = new SplittableRandom(seed + n);
            final Damage damage = payloadFlips ? fuzz.damagePayload(random) : repair ? fuzz.damageForRepair(random)
                    : fuzz.damageCopy(random);
            String failure;
            try {
                failure = payloadFlips ? fuzz.checkPayload(damage) : repair ? fuzz.checkRepair(damage)
                        : fuzz.check(damage, random);
            } catch (Throwable e) {
                failure = "the checker itself failed: " + stackTrace(e);
            }
            if (failure == null) {
                try {
                    AbstractReferenceCounted.assertReferencesReleased();
                } catch (AssertionError e) {
                    failure = "mapped memory leaked after the case: " + stackTrace(e);
                }
            }
            System.out.println((failure == null ? "PASS " : "FAIL ") + n + " " + damage
                    + (failure == null ? "" : ": " + failure.replace('\n', '|')));
            deleteRecursively(fuzz.work);
        }
        System.out.println("DONE");
    }

    /** Reads the undamaged queue once: every excerpt's file, header position and payload. */
    private void learnTemplate() throws IOException {
        final java.util.Map<Path, byte[]> files = new java.util.HashMap<>();
        try (SpoolQueue queue = SpoolQueue.builder(template).open();
             ExcerptTailer tailer = queue.createTailer()) {
            final RollCycle rollCycle = queue.rollCycle();
            final long epoch = queue.epochMillis();
            payloadOffset = queue.checksums() ? ExcerptDescriptor.CHECKSUMMED_PAYLOAD_OFFSET : ExcerptDescriptor.HEADER_LENGTH;
            while (tailer.read((bytes, offset, length, index) -> {
                final byte[] payload = new byte[length];
                bytes.read(offset, payload, 0, length);
                final Path file = template.resolve(rollCycle.fileName(rollCycle.toCycle(index), epoch));
                excerpts.put(index, new Excerpt(index, file, offset - payloadOffset, payload,
                        indexEntryPosition(files.computeIfAbsent(file, DamageFuzz::readAll), rollCycle.toSequence(index))));
            })) {
                if (excerpts.size() > 1_000_000) {
                    throw new IllegalStateException("the template never ends");
                }
            }
        }
    }

    private static byte[] readAll(final Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** @return where the index entry of the span holding {@code sequence} is in the file's bytes. */
    private static long indexEntryPosition(final byte[] file, final long sequence) {
        final long entry = sequence / DamageFuzzTest.INDEX_SPACING;
        final long block = entry / DamageFuzzTest.INDEX_BLOCK_ENTRIES;
        final long blockPosition = readLong(file, (int) CycleDescriptor.rootEntryPosition((int) block));
        return blockPosition + CycleDescriptor.BLOCK_ENTRIES_OFFSET + entry % DamageFuzzTest.INDEX_BLOCK_ENTRIES * Long.BYTES;
    }

    /** Copies the template to the work directory and flips bits of one excerpt's CRC32C field and payload. */
    private Damage damagePayload(final SplittableRandom random) throws IOException {
        copyTemplate();
        final List<Excerpt> all = new ArrayList<>(excerpts.values());
        final Excerpt hit = all.get(random.nextInt(all.size()));
        final Path file = work.resolve(hit.file().getFileName());
        final byte[] bytes = Files.readAllBytes(file);
        final int span = ExcerptDescriptor.CHECKSUM_LENGTH + hit.payload().length;
        final long[] positions = random.longs(span, 0, span).distinct().limit(1 + random.nextInt(Math.min(3, span)))
                .map(at -> hit.headerPosition() + ExcerptDescriptor.CHECKSUM_OFFSET + at).toArray();
        for (final long position : positions) {
            bytes[(int) position] ^= (byte) (1 << random.nextInt(8));
        }
        Files.write(file, bytes);
        return new Damage(file, positions, -1);
    }

    /**
     * Copies the template to the work directory and, three times in four, flips one to three bits of one excerpt (its
     * header, CRC32C field and payload); else damages the copy as a structural case does.
     */
    private Damage damageForRepair(final SplittableRandom random) throws IOException {
        if (random.nextInt(4) == 0) {
            return damageCopy(random);
        }
        copyTemplate();
        final List<Excerpt> all = new ArrayList<>(excerpts.values());
        final Excerpt hit = all.get(random.nextInt(all.size()));
        final Path file = work.resolve(hit.file().getFileName());
        final byte[] bytes = Files.readAllBytes(file);
        final int span = payloadOffset + hit.payload().length;
        final long[] positions = random.longs(span, 0, span).distinct().limit(1 + random.nextInt(3))
                .map(at -> hit.headerPosition() + at).toArray();
        for (final long position : positions) {
            bytes[(int) position] ^= (byte) (1 << random.nextInt(8));
        }
        Files.write(file, bytes);
        return new Damage(file, positions, -1);
    }

    /**
     * Repairs the damaged copy from the template, the replica whose files equal the primary's, with {@code spool
     * repair}. @return why the case broke a rule, or null: every byte the repair changed is the replica's; damage the
     * checksums prove in an excerpt's CRC32C field or payload is restored exactly; a repair that writes anything
     * leaves the damaged excerpts as the replica holds them; and a refusal (or a scan that proves nothing) writes
     * nothing.
     */
    private String checkRepair(final Damage damage) throws IOException {
        final java.util.Map<Path, byte[]> before = cycleFiles(work);
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        final int status;
        try (java.io.PrintStream print = new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8)) {
            status = dev.spool.queue.tools.SpoolTool.run(new String[]{"repair", work.toString(), "--copy",
                    template.toString()}, print, print);
        }
        final String text = out.toString(java.nio.charset.StandardCharsets.UTF_8).replace('\n', '|');
        final java.util.Map<Path, byte[]> after = cycleFiles(work);
        final java.util.Map<Path, byte[]> replica = cycleFiles(template);
        boolean changed = false;
        for (final java.util.Map.Entry<Path, byte[]> file : before.entrySet()) {
            final byte[] was = file.getValue();
            final byte[] now = after.get(file.getKey());
            final byte[] theirs = replica.get(file.getKey());
            if (now == null || now.length != was.length) {
                return "the repair deleted or resized " + file.getKey() + " (exit " + status + "): " + text;
            }
            for (int i = 0; i < was.length; i++) {
                if (now[i] != was[i]) {
                    changed = true;
                    if (theirs == null || i >= theirs.length || now[i] != theirs[i]) {
                        return "the repair wrote a byte the replica does not hold, at position=" + i + " of "
                                + file.getKey().getFileName() + " (exit " + status + "): " + text;
                    }
                }
            }
        }
        final boolean inPayload = damage.truncatedTo() < 0 && Arrays.stream(damage.positions()).allMatch(at -> {
            for (final Excerpt excerpt : excerpts.values()) {
                if (damage.flipped(excerpt.file(), excerpt.headerPosition() + ExcerptDescriptor.CHECKSUM_OFFSET,
                        excerpt.headerPosition() + payloadOffset + excerpt.payload().length)
                        && at >= excerpt.headerPosition() + ExcerptDescriptor.CHECKSUM_OFFSET
                        && at < excerpt.headerPosition() + payloadOffset + excerpt.payload().length) {
                    return true;
                }
            }
            return false;
        });
        if (inPayload && (status != dev.spool.queue.tools.SpoolTool.EXIT_OK || !sameFiles(after, replica))) {
            return "damage inside one excerpt's CRC32C field and payload was not restored to the replica's bytes (exit "
                    + status + "): " + text;
        }
        if (!text.contains("REPAIRED") && !text.contains("regions were rewritten before") && changed) {
            return "a repair that reported no repaired range changed the files (exit " + status + "): " + text;
        }
        if (status != dev.spool.queue.tools.SpoolTool.EXIT_OK && status != dev.spool.queue.tools.SpoolTool.EXIT_FAILED) {
            return "repair exited with " + status + ": " + text;
        }
        return null;
    }

    /** @return the bytes of each cycle file in {@code directory}, by name. */
    private static java.util.Map<Path, byte[]> cycleFiles(final Path directory) throws IOException {
        final java.util.Map<Path, byte[]> files = new java.util.TreeMap<>();
        try (Stream<Path> list = Files.list(directory)) {
            for (final Path file : (Iterable<Path>) list::iterator) {
                if (file.getFileName().toString().endsWith(RollCycle.FILE_SUFFIX)) {
                    files.put(file.getFileName(), Files.readAllBytes(file));
                }
            }
        }
        return files;
    }

    private static boolean sameFiles(final java.util.Map<Path, byte[]> a, final java.util.Map<Path, byte[]> b) {
        if (!a.keySet().equals(b.keySet())) {
            return false;
        }
        for (final java.util.Map.Entry<Path, byte[]> file : a.entrySet()) {
            if (!Arrays.equals(file.getValue(), b.get(file.getKey()))) {
                return false;
            }
        }
        return true;
    }

    /** @return the excerpt whose CRC32C field or payload holds the flipped bytes of a payload case. */
    private Excerpt hitBy(final Damage damage) {
        for (final Excerpt excerpt : excerpts.values()) {
            if (damage.flipped(excerpt.file(), excerpt.headerPosition() + ExcerptDescriptor.CHECKSUM_OFFSET,
                    excerpt.headerPosition() + payloadOffset + excerpt.payload().length)) {
                return excerpt;
            }
        }
        throw new IllegalStateException("no excerpt holds " + damage);
    }

    /**
     * @return why a payload case broke a rule, or null: the damaged excerpt is never returned, each read of it throws
     * naming its file and position, every other excerpt reads back exactly, and verify reports it.
     */
    private String checkPayload(final Damage damage) {
        final Excerpt hit = hitBy(damage);
        final List<String> failures = new ArrayList<>();
        try (SpoolQueue queue = SpoolQueue.builder(work).open()) {
            failures.add(readAround(queue, hit, Direction.FORWARD));
            failures.add(readAround(queue, hit, Direction.BACKWARD));
            failures.add(moveToEachIndexAround(queue, hit));
        } catch (RuntimeException e) {
            failures.add("open: " + stackTrace(e));
        }
        failures.add(verifyReports(hit));
        for (final String failure : failures) {
            if (failure != null) {
                return failure;
            }
        }
        return null;
    }

    /**
     * Reads the whole queue in one direction: every excerpt before the damaged one exactly, then a checksum
     * exception at it.
     */
    private String readAround(final SpoolQueue queue, final Excerpt hit, final Direction direction) {
        final String how = "a " + direction.name().toLowerCase(java.util.Locale.ROOT) + " read";
        final List<Long> read = new ArrayList<>();
        final String[] failure = new String[1];
        try (ExcerptTailer tailer = queue.createTailer()) {
            if (direction == Direction.BACKWARD) {
                tailer.direction(Direction.BACKWARD).toEnd();
            }
            try {
                while (failure[0] == null && tailer.read((bytes, offset, length, index) -> {
                    final byte[] copy = new byte[length];
                    bytes.read(offset, copy, 0, length);
                    read.add(index);
                    failure[0] = exact(how, index, copy, hit);
                })) {
                    if (read.size() > excerpts.size()) {
                        return how + " returned more excerpts than the queue holds";
                    }
                }
            } catch (RuntimeException e) {
                final String undetected = detected(how + " after " + read.size() + " excerpts", e, hit);
                if (undetected != null) {
                    return undetected;
                }
                final long expectedReads = direction == Direction.FORWARD ? excerpts.headMap(hit.index()).size()
                        : excerpts.tailMap(hit.index(), false).size();
                return read.size() == expectedReads ? null : how + " threw after " + read.size() + " excerpts, expected "
                        + expectedReads + " before the damaged index " + Long.toHexString(hit.index());
            }
            return failure[0] != null ? failure[0] : how + " ended after " + read.size() + " excerpts without detecting"
                    + " the damaged index " + Long.toHexString(hit.index());
        }
    }

    /** Moves to every index and reads once: exact bytes, or a checksum exception at the damaged index only. */
    private String moveToEachIndexAround(final SpoolQueue queue, final Excerpt hit) {
        try (ExcerptTailer tailer = queue.createTailer()) {
            for (final Excerpt excerpt : excerpts.values()) {
                final String how = "moveToIndex(" + Long.toHexString(excerpt.index()) + ") then read";
                final String[] failure = new String[1];
                try {
                    if (!tailer.moveToIndex(excerpt.index())) {
                        return how + " found no excerpt";
                    }
                    tailer.read((bytes, offset, length, index) -> {
                        final byte[] copy = new byte[length];
                        bytes.read(offset, copy, 0, length);
                        failure[0] = index != excerpt.index() ? how + " returned index " + Long.toHexString(index)
                                : exact(how, index, copy, hit);
                    });
                    if (failure[0] == null && excerpt.index() == hit.index()) {
                        failure[0] = how + " did not throw at the damaged excerpt";
                    }
                } catch (RuntimeException e) {
                    failure[0] = excerpt.index() == hit.index() ? detected(how, e, hit)
                            : how + " threw at an undamaged excerpt: " + stackTrace(e);
                }
                if (failure[0] != null) {
                    return failure[0];
                }
            }
        }
        return null;
    }

    /** @return null if {@code read} is the original payload of an undamaged {@code index}, else the silent wrong read. */
    private String exact(final String how, final long index, final byte[] read, final Excerpt hit) {
        if (index == hit.index()) {
            return how + " SILENTLY returned the damaged excerpt at index " + Long.toHexString(index);
        }
        final Excerpt original = excerpts.get(index);
        return original != null && Arrays.equals(original.payload(), read) ? null
                : how + " returned different bytes for the undamaged index " + Long.toHexString(index);
    }

    /** @return null if {@code e} is the checksum exception of the damaged excerpt: its file, position and index. */
    private String detected(final String how, final RuntimeException e, final Excerpt hit) {
        if (e instanceof CorruptQueueException corrupt && corrupt.position() == hit.headerPosition()
                && corrupt.file().getFileName().equals(hit.file().getFileName())
                && e.getMessage().contains("CRC32C mismatch in the excerpt of index 0x"
                + Long.toHexString(hit.index()) + " (cycle ")) {
            return null;
        }
        return how + " threw, but not the checksum exception of index " + Long.toHexString(hit.index()) + " at position="
                + hit.headerPosition() + ": " + stackTrace(e);
    }

    /** @return null if verify exits with 1 and names the damaged excerpt's file, position and index. */
    private String verifyReports(final Excerpt hit) {
        final java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        final int status;
        try (java.io.PrintStream print = new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8)) {
            status = dev.spool.queue.tools.SpoolTool.run(new String[]{"verify", work.toString()}, print, print);
        }
        final String text = out.toString(java.nio.charset.StandardCharsets.UTF_8);
        final boolean named = text.contains("CRC32C mismatch in the excerpt of index 0x"
                + Long.toHexString(hit.index()) + " (cycle ")
                && text.contains("position=" + hit.headerPosition()) && text.contains(hit.file().getFileName().toString());
        return status == dev.spool.queue.tools.SpoolTool.EXIT_FAILED && named ? null
                : "verify exited with " + status + (named ? "" : " without naming index " + hit.index() + " at position="
                + hit.headerPosition()) + ": " + text.replace('\n', '|');
    }

    /** Copies the template to the work directory; @return the copies that may be damaged (not the lock file). */
    private List<Path> copyTemplate() throws IOException {
        Files.createDirectories(work);
        final List<Path> files = new ArrayList<>();
        try (Stream<Path> list = Files.list(template)) {
            for (final Path file : (Iterable<Path>) list.sorted()::iterator) {
                final Path copy = work.resolve(file.getFileName());
                Files.copy(file, copy, StandardCopyOption.COPY_ATTRIBUTES);
                if (!file.getFileName().toString().equals(MetadataDescriptor.LOCK_FILE_NAME)) {
                    files.add(copy);
                }
            }
        }
        return files;
    }

    /** Copies the template to the work directory and damages one file of the copy. */
    private Damage damageCopy(final SplittableRandom random) throws IOException {
        final List<Path> files = copyTemplate();
        final Path file = files.get(random.nextInt(files.size()));
        final boolean metadata = file.getFileName().toString().equals(MetadataDescriptor.FILE_NAME);
        final byte[] bytes = Files.readAllBytes(file);
        final long used = metadata ? bytes.length : readLong(bytes, CycleDescriptor.WRITE_POSITION_OFFSET) + 64;
        if (random.nextInt(10) == 0) {
            final long length = random.nextLong(Math.min(used + 4096, bytes.length));
            Files.write(file, Arrays.copyOf(bytes, (int) length));
            return new Damage(file, new long[0], length);
        }
        final long[] positions = new long[1 + random.nextInt(3)];
        for (int i = 0; i < positions.length; i++) {
            positions[i] = metadata ? metadataPosition(random) : cyclePosition(random, file, used);
            bytes[(int) positions[i]] ^= (byte) (1 << random.nextInt(8));
        }
        Files.write(file, bytes);
        return new Damage(file, positions, -1);
    }

    /** @return a byte of the metadata file that means something: settings, lock, cycles, synced index, a named tailer. */
    private static long metadataPosition(final SplittableRandom random) {
        if (random.nextBoolean()) {
            return random.nextInt(MetadataDescriptor.TERM_OFFSET + Long.BYTES);
        }
        return MetadataDescriptor.NAMED_TAILERS_OFFSET + random.nextInt(2 * MetadataDescriptor.NAMED_TAILER_LENGTH);
    }

    /** @return a byte of a cycle file: its header, its root index, an excerpt header, or anywhere in its excerpts. */
    private long cyclePosition(final SplittableRandom random, final Path file, final long used) {
        final int region = random.nextInt(4);
        if (region == 0) {
            return random.nextInt(CycleDescriptor.WRITE_SEQUENCE_OFFSET + Long.BYTES);
        }
        if (region == 1) {
            return CycleDescriptor.ROOT_OFFSET + random.nextInt(4 * Long.BYTES);
        }
        if (region == 2) {
            final List<Excerpt> inFile = new ArrayList<>();
            for (final Excerpt excerpt : excerpts.values()) {
                if (excerpt.file().getFileName().equals(file.getFileName())) {
                    inFile.add(excerpt);
                }
            }
            if (!inFile.isEmpty()) {
                return inFile.get(random.nextInt(inFile.size())).headerPosition() + random.nextInt(ExcerptDescriptor.HEADER_LENGTH);
            }
        }
        return CycleDescriptor.DATA_OFFSET + random.nextLong(Math.max(1, used - CycleDescriptor.DATA_OFFSET));
    }

    /** @return why the damaged copy broke a rule, or null if it kept them all. */
    private String check(final Damage damage, final SplittableRandom random) {
        final List<String> failures = new ArrayList<>();
        final EpochClock clock = () -> clockMillis;
        try (SpoolQueue queue = SpoolQueue.builder(work).epochClock(clock).open()) {
            failures.add(readForward(queue, damage, -1, null));
            failures.add(readBackward(queue, damage));
            failures.add(moveToEveryIndex(queue, damage));
        } catch (RuntimeException e) {
            failures.add(unclear("open", e));
        }
        failures.add(appendAndReadBack(damage, random, clock));
        for (final String failure : failures) {
            if (failure != null) {
                return failure;
            }
        }
        return null;
    }

    /**
     * @return true if the excerpt may read differently: a flipped byte lies in its payload, which has no checksum, or
     * in a header from the last indexed excerpt up to its own, or in the index entry of its span. A header's length
     * has no checksum either: a flip there sends a forward walk astray until the next index entry, where the tailer
     * checks its position and throws. An index entry changed to the position of another excerpt's header sends
     * {@code moveToIndex} there; a forward read that passes it finds the mismatch.
     */
    private boolean touched(final Damage damage, final Excerpt excerpt) {
        final long end = excerpt.headerPosition() + payloadOffset + excerpt.payload().length;
        final long sequence = excerpt.index() & (RollCycle.HOURLY.maxSequences() - 1);
        final Excerpt indexed = excerpts.get(excerpt.index() - sequence % DamageFuzzTest.INDEX_SPACING);
        return damage.flipped(excerpt.file(), indexed.headerPosition(), end)
                || damage.flipped(excerpt.file(), excerpt.indexEntryPosition(), excerpt.indexEntryPosition() + Long.BYTES);
    }

    /** @return null if the excerpt read at {@code index} is the original, or touched by the damage. */
    private String compare(final String how, final Damage damage, final long index, final byte[] read) {
        final Excerpt original = excerpts.get(index);
        if (original == null) {
            return how + " returned index " + Long.toHexString(index) + " of length " + read.length
                    + ", which the queue never held";
        }
        if (!Arrays.equals(original.payload(), read) && !touched(damage, original)) {
            return how + " returned different bytes for index " + Long.toHexString(index) + " (length " + read.length
                    + ", was " + original.payload().length + "), whose own bytes were not damaged";
        }
        return null;
    }

    /**
     * Reads from the start to the end or to an exception; every excerpt read must be the original, and every
     * untouched original must be read unless an exception stopped the read.
     *
     * @param appended the index of an excerpt appended to the damaged copy, or -1
     * @param payload  its payload
     */
    private String readForward(final SpoolQueue queue, final Damage damage, final long appended, final byte[] payload) {
        final List<Long> read = new ArrayList<>();
        final String[] failure = new String[1];
        try (ExcerptTailer tailer = queue.createTailer()) {
            while (failure[0] == null && tailer.read((bytes, offset, length, index) -> {
                final byte[] copy = new byte[length];
                bytes.read(offset, copy, 0, length);
                read.add(index);
                if (index == appended) {
                    if (!Arrays.equals(payload, copy)) {
                        failure[0] = "a forward read returned different bytes for the appended index " + Long.toHexString(index);
                    }
                } else {
                    failure[0] = compare("a forward read", damage, index, copy);
                }
            })) {
                if (read.size() > 2 * excerpts.size() + 10) {
                    return "a forward read returned more excerpts than the queue holds: " + read.size();
                }
            }
        } catch (RuntimeException e) {
            return unclear("a forward read after " + read.size() + " excerpts", e);
        }
        if (failure[0] != null) {
            return failure[0];
        }
        for (final Excerpt excerpt : excerpts.values()) {
            if (!read.contains(excerpt.index()) && !touched(damage, excerpt)) {
                return "a forward read ended without an exception after " + read.size() + " excerpts, never returning index "
                        + Long.toHexString(excerpt.index()) + (appended >= 0 ? " (after an append at " + Long.toHexString(appended) + ")" : "")
                        + "; it read " + ranges(read);
            }
        }
        if (appended >= 0 && !read.contains(appended)) {
            return "a forward read ended without an exception before the appended index " + Long.toHexString(appended);
        }
        return null;
    }

    private String readBackward(final SpoolQueue queue, final Damage damage) {
        final List<Long> read = new ArrayList<>();
        final String[] failure = new String[1];
        try (ExcerptTailer tailer = queue.createTailer()) {
            tailer.direction(Direction.BACKWARD).toEnd();
            while (failure[0] == null && tailer.read((bytes, offset, length, index) -> {
                final byte[] copy = new byte[length];
                bytes.read(offset, copy, 0, length);
                read.add(index);
                failure[0] = compare("a backward read", damage, index, copy);
            })) {
                if (read.size() > 2 * excerpts.size() + 10) {
                    return "a backward read returned more excerpts than the queue holds: " + read.size();
                }
            }
        } catch (RuntimeException e) {
            return unclear("a backward read after " + read.size() + " excerpts", e);
        }
        if (failure[0] != null) {
            return failure[0];
        }
        for (final Excerpt excerpt : excerpts.values()) {
            if (!read.contains(excerpt.index()) && !touched(damage, excerpt)) {
                return "a backward read ended without an exception after " + read.size() + " excerpts, never returning index "
                        + Long.toHexString(excerpt.index());
            }
        }
        return null;
    }

    private String moveToEveryIndex(final SpoolQueue queue, final Damage damage) {
        try (ExcerptTailer tailer = queue.createTailer()) {
            for (final Excerpt excerpt : excerpts.values()) {
                final String[] failure = new String[1];
                try {
                    if (!tailer.moveToIndex(excerpt.index())) {
                        if (!touched(damage, excerpt)) {
                            return "moveToIndex(" + Long.toHexString(excerpt.index()) + ") found no excerpt, without an exception";
                        }
                        continue;
                    }
                    final boolean found = tailer.read((bytes, offset, length, index) -> {
                        final byte[] copy = new byte[length];
                        bytes.read(offset, copy, 0, length);
                        failure[0] = index != excerpt.index() ? "moveToIndex(" + Long.toHexString(excerpt.index())
                                + ") then read returned index " + Long.toHexString(index)
                                : compare("moveToIndex then read", damage, index, copy);
                    });
                    if (!found && !touched(damage, excerpt)) {
                        return "moveToIndex(" + Long.toHexString(excerpt.index()) + ") succeeded but nothing could be read there";
                    }
                } catch (RuntimeException e) {
                    failure[0] = unclear("moveToIndex(" + Long.toHexString(excerpt.index()) + ") and read", e);
                }
                if (failure[0] != null) {
                    return failure[0];
                }
            }
        } catch (RuntimeException e) {
            return unclear("a tailer for moveToIndex", e);
        }
        return null;
    }

    /**
     * Appends once in the highest cycle; if that succeeds, a new instance must find the excerpt there, and a forward
     * read must return it and every untouched original, or stop with a clear exception.
     */
    private String appendAndReadBack(final Damage damage, final SplittableRandom random, final EpochClock clock) {
        final byte[] payload = new byte[Messages.MIN_LENGTH + random.nextInt(100)];
        Messages.encode(payload, payload.length, 99, random.nextInt(1_000_000));
        final long index;
        try (SpoolQueue queue = SpoolQueue.builder(work).epochClock(clock).open();
             ExcerptAppender appender = queue.createAppender()) {
            index = appender.append(payload);
        } catch (RuntimeException e) {
            return unclear("an append", e);
        }
        try (SpoolQueue queue = SpoolQueue.builder(work).epochClock(clock).open()) {
            try (ExcerptTailer tailer = queue.createTailer()) {
                if (!tailer.moveToIndex(index)) {
                    return "the append returned index " + Long.toHexString(index) + " but moveToIndex finds nothing there";
                }
                final byte[][] read = new byte[1][];
                tailer.read((bytes, offset, length, at) -> {
                    read[0] = new byte[length];
                    bytes.read(offset, read[0], 0, length);
                });
                if (!Arrays.equals(payload, read[0])) {
                    return "the appended excerpt at " + Long.toHexString(index) + " reads back different";
                }
            } catch (RuntimeException e) {
                final String unclear = unclear("moveToIndex to the appended excerpt", e);
                if (unclear != null) {
                    return unclear;
                }
            }
            return readForward(queue, damage, index, payload);
        } catch (RuntimeException e) {
            return unclear("reopening after an append", e);
        }
    }

    /** @return null if {@code e} is a {@link SpoolException} naming a file of the damaged queue, else what it is. */
    private String unclear(final String what, final RuntimeException e) {
        if (e instanceof SpoolException && e.getMessage() != null && e.getMessage().contains(work.toString())) {
            return null;
        }
        return what + " threw an unclear exception: " + stackTrace(e);
    }

    /** @return indices as hexadecimal runs, e.g. {@code [a0..a4, b0..b9]}. */
    private static String ranges(final List<Long> indices) {
        final StringBuilder text = new StringBuilder("[");
        for (int i = 0; i < indices.size(); i++) {
            int end = i;
            while (end + 1 < indices.size() && indices.get(end + 1) == indices.get(end) + 1) {
                end++;
            }
            text.append(text.length() > 1 ? ", " : "").append(Long.toHexString(indices.get(i)));
            if (end > i) {
                text.append("..").append(Long.toHexString(indices.get(end)));
            }
            i = end;
        }
        return text.append(']').toString();
    }

    private static String stackTrace(final Throwable e) {
        final StringWriter text = new StringWriter();
        e.printStackTrace(new PrintWriter(text));
        final String[] lines = text.toString().split("\n");
        return String.join("\n", Arrays.copyOf(lines, Math.min(lines.length, 12)));
    }

    private static long readLong(final byte[] bytes, final int at) {
        long value = 0;
        for (int i = Long.BYTES - 1; i >= 0; i--) {
            value = value << 8 | (bytes[at + i] & 0xFF);
        }
        return value;
    }

    private static void deleteRecursively(final Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (Stream<Path> files = Files.walk(path)) {
            for (final Path file : (Iterable<Path>) files.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(file);
            }
        }
    }
}
