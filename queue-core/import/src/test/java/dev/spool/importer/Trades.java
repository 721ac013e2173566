package dev.spool.importer;

import dev.spool.queue.typed.Events;

/** The events of the typed import's tests: written by Chronicle's method writer, imported as Spool typed events. */
@Events
public interface Trades {
    void trade(long id, double price, CharSequence symbol);

    void cancel(long id);
}
