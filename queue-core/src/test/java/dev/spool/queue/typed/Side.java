package dev.spool.queue.typed;

enum Side {
    BUY, SELL
}
