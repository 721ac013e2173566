package dev.spool.queue.typed;

/** The 5-field order of the issue, plus a nested message. */
final class NewOrder {
    long id;
    @Fixed(12)
    StringBuilder instrument = new StringBuilder();
    Side side;
    double price;
    long quantity;
    Account account = new Account();
}
