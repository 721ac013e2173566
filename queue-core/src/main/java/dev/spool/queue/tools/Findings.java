package dev.spool.queue.tools;

import java.io.PrintStream;
import java.nio.file.Path;

/** What {@code verify} found, printed as it is found: damage, counted, and warnings of what the next append repairs. */
final class Findings {
    private final PrintStream out;
    private int damage;

    Findings(final PrintStream out) {
        this.out = out;
    }

    void damage(final Path file, final long position, final String what) {
        damage++;
        out.println("DAMAGE " + file + " position=" + position + ": " + what);
    }

    void warning(final Path file, final long position, final String what) {
        out.println("WARNING " + file + " position=" + position + ": " + what);
    }

    int damageCount() {
        return damage;
    }
}
