package dev.spool.queue.typed;

/**
 * Interfaces whose arguments all have a fixed length, read at constant offsets when writer and reader agree: the
 * reader's build ({@link Fills}) and builds that differ from it in a fixed string's length ({@link WiderFills}) or
 * in an enum's constants ({@link MoreSides}).
 */
final class FixedLayouts {
    private FixedLayouts() {
    }

    enum ThreeSides {
        BUY, SELL, CROSS
    }

    static final class Leg {
        int ratio;
        char kind;
    }

    static final class Fill {
        long id;
        @Fixed(8)
        StringBuilder instrument = new StringBuilder();
        @Fixed(2)
        byte[] flags = new byte[2];
        Leg leg = new Leg();
        Side side;
        double price;
        @Fixed(4)
        CharSequence trader;
    }

    static final class WideFill {
        long id;
        @Fixed(12)
        StringBuilder instrument = new StringBuilder();
        @Fixed(2)
        byte[] flags = new byte[2];
        Leg leg = new Leg();
        Side side;
        double price;
        @Fixed(4)
        CharSequence trader;
    }

    @Events(id = 200)
    interface Fills {
        @MethodId(1)
        void fill(Fill fill, @Fixed(4) byte[] venue, @Fixed(3) CharSequence currency, Side side, int quantity);

        @MethodId(2)
        void flags(boolean b, byte y, short s, char c, int i, long l, float f, double d);
    }

    @Events(id = 200)
    interface WiderFills {
        @MethodId(1)
        void fill(WideFill fill, @Fixed(4) byte[] venue, @Fixed(3) CharSequence currency, Side side, int quantity);
    }

    @Events(id = 200)
    interface MoreSides {
        @MethodId(2)
        void flags(boolean b, byte y, short s, char c, int i, long l, float f, double d);

        @MethodId(1)
        void fill(Fill fill, @Fixed(4) byte[] venue, @Fixed(3) CharSequence currency, ThreeSides side, int quantity);
    }
}
