package dev.spool.queue.typed;

/** A message nested in {@link NewOrder}. */
final class Account {
    StringBuilder name = new StringBuilder();
    int region;
}
