package dev.spool.queue.engine;

import dev.spool.queue.RollCycle;
import dev.spool.queue.SpoolTestBase;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.*;

class CycleFilesTest extends SpoolTestBase {
    private static final long CYCLE = 473_000;

    @Test
    void shouldTakeACycleFileDeletedJustBeforeItIsOpenedForAbsentAndLeaveNoFileBehind() {
        // what a tailer meets when retention in another process deletes the file it just listed
        final Path path = tempDir.resolve(RollCycle.HOURLY.fileName(CYCLE, 0));
        assertNull(CycleFile.open(path, CYCLE, RollCycle.HOURLY, 1 << 20, false));
        assertFalse(Files.exists(path), "opening a missing cycle file must not create an empty one");
    }

    @Test
    void shouldTakeACycleFileDeletedJustBeforeAReadOnlyOpenForAbsent() {
        final Path path = tempDir.resolve(RollCycle.HOURLY.fileName(CYCLE, 0));
        assertNull(CycleFile.open(path, CYCLE, RollCycle.HOURLY, 1 << 20, true));
        assertFalse(Files.exists(path));
    }
}
