package dev.spool.queue.internal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Not API: sets a queue's directory aside, renamed beside it with every file kept, so that a replica can be rebuilt
 * in its place and nothing it held is ever discarded: a replica that diverged from a new primary, or one that fell
 * behind the primary's retention. The one implementation of the name's rules for the sink and the failover node.
 */
public final class SetAside {
    private SetAside() {
    }

    /**
     * Renames {@code directory} to {@code <directory>.<suffix>}, or {@code <directory>.<suffix>-<n>} with the first
     * {@code n} from 1 whose name is free. The queue in it must be closed in this process.
     *
     * @param directory a queue's directory.
     * @param suffix    why it is set aside, as a file name's part: {@code diverged-term-3}, {@code behind-retention}.
     * @return where the directory went.
     * @throws UncheckedIOException naming both paths, if it cannot be renamed.
     */
    public static Path move(final Path directory, final String suffix) {
        final Path from = directory.toAbsolutePath().normalize();
        final String name = from.getFileName() + "." + suffix;
        Path aside = from.resolveSibling(name);
        for (int n = 1; Files.exists(aside); n++) {
            aside = from.resolveSibling(name + "-" + n);
        }
        try {
            Files.move(from, aside);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot set " + from + " aside as " + aside, e);
        }
        return aside;
    }
}
