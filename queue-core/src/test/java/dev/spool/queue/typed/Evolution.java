package dev.spool.queue.typed;

/** Three builds of one interface (events id 100): the first, a newer one, and one that changed a field's type. */
final class Evolution {
    private Evolution() {
    }

    static final class OrderV1 {
        long id;
        long quantity;
    }

    static final class OrderV2 {
        long id;
        long quantity;
        StringBuilder venue = new StringBuilder();
        Side side;
    }

    static final class OrderChanged {
        long id;
        double quantity;
    }

    @Events(id = 100)
    interface V1 {
        @MethodId(1)
        void order(OrderV1 order);
    }

    @Events(id = 100)
    interface V2 {
        @MethodId(1)
        void order(OrderV2 order);

        @MethodId(2)
        void amend(long id, long quantity);
    }

    @Events(id = 100)
    interface Changed {
        @MethodId(1)
        void order(OrderChanged order);
    }
}
