package dev.spool.queue.typed;

enum CancelReason {
    USER, RISK, EXPIRED
}
