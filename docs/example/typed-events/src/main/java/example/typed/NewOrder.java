package example.typed;

import dev.spool.queue.typed.Fixed;

/**
 * A message class: plain fields, no getters. The generated reader fills one instance for every call, so a handler
 * copies what must outlive the call. Add fields at the end only, so that older readers still read newer excerpts.
 */
public final class NewOrder {
    /** The order id. */
    public long id;
    /** The instrument: a fixed 8 ISO-8859-1 characters, written in place without garbage. */
    @Fixed(8)
    public StringBuilder instrument = new StringBuilder();
    /** Buy or sell. */
    public Side side;
    /** The limit price. */
    public double price;
    /** The quantity. */
    public long quantity;

    /**
     * Fills this order, so that a writer reuses one instance for every call.
     *
     * @param id         the order id.
     * @param instrument the instrument, at most 8 characters.
     * @param side       buy or sell.
     * @param price      the limit price.
     * @param quantity   the quantity.
     * @return this order.
     */
    public NewOrder set(final long id, final CharSequence instrument, final Side side, final double price,
                        final long quantity) {
        this.id = id;
        this.instrument.setLength(0);
        this.instrument.append(instrument);
        this.side = side;
        this.price = price;
        this.quantity = quantity;
        return this;
    }
}
