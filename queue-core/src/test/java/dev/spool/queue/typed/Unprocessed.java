package dev.spool.queue.typed;

/** Interfaces the reader factory must refuse or disambiguate. */
final class Unprocessed {
    private Unprocessed() {
    }

    /** Not annotated: the processor generates nothing for it. */
    interface Plain {
        void ping(long id);
    }

    /** A second @Events interface, for a target that implements two. */
    @Events(id = 200)
    interface Audit {
        void audit(long id);
    }

    /** Implements two @Events interfaces. */
    static final class Both implements OrderEvents, Audit {
        final Recorder recorder = new Recorder();
        final java.util.List<Long> audits = new java.util.ArrayList<>();

        @Override
        public void audit(final long id) {
            audits.add(id);
        }

        @Override
        public void newOrder(final NewOrder order) {
            recorder.newOrder(order);
        }

        @Override
        public void cancel(final long orderId, final CancelReason why) {
            recorder.cancel(orderId, why);
        }

        @Override
        public void note(final CharSequence text, final CharSequence tag) {
            recorder.note(text, tag);
        }

        @Override
        public void blob(final net.openhft.chronicle.bytes.Bytes<?> data, final byte[] key) {
            recorder.blob(data, key);
        }

        @Override
        public void quote(final Price bid, final Price ask) {
            recorder.quote(bid, ask);
        }

        @Override
        public void primitives(final boolean b, final byte y, final short s, final char c, final int i, final long l,
                               final float f, final double d) {
            recorder.primitives(b, y, s, c, i, l, f, d);
        }
    }
}
