package dev.spool.benchmarks.support;

import dev.spool.queue.typed.Fixed;

/** The 5-field order of the typed benchmarks: 52 bytes as a typed excerpt. */
public final class Order {
    /** The order id. */
    public long id;
    /** The instrument, up to 8 ISO-8859-1 characters. */
    @Fixed(8)
    public StringBuilder instrument = new StringBuilder();
    /** Buy or sell. */
    public Side side;
    /** The limit price. */
    public double price;
    /** The quantity. */
    public long quantity;

    /** An empty order. */
    public Order() {
    }

    /**
     * @param id         the order id.
     * @param instrument the instrument.
     * @param side       buy or sell.
     * @param price      the price.
     * @param quantity   the quantity.
     * @return this order.
     */
    public Order set(final long id, final CharSequence instrument, final Side side, final double price, final long quantity) {
        this.id = id;
        this.instrument.setLength(0);
        this.instrument.append(instrument);
        this.side = side;
        this.price = price;
        this.quantity = quantity;
        return this;
    }
}
