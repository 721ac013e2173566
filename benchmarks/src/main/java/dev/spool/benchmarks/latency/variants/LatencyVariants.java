package dev.spool.benchmarks.latency.variants;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/** The variants the {@code jlbh} command knows; each experiment of the {@code jlbh} command names those it runs. */
public final class LatencyVariants {
    /** Every variant, in the order {@code --help} lists them. */
    static final List<Supplier<LatencyVariant>> ALL = List.of(
            FloorVariant::new,
            FloorVariant::besideDiskWriter,
            SpoolVariant::new,
            SpoolVariant::pretouched,
            TypedVariant::new,
            () -> new RingVariant(RingVariant.Mode.RING),
            () -> new RingVariant(RingVariant.Mode.READ),
            () -> new RingVariant(RingVariant.Mode.DEFAULT),
            () -> new RingVariant(RingVariant.Mode.LOW_DUTY_SHORT),
            () -> new RingVariant(RingVariant.Mode.INVOKED),
            () -> new RingVariant(RingVariant.Mode.TMPFS),
            () -> new RingVariant(RingVariant.Mode.NO_DRAIN),
            () -> new RingVariant(RingVariant.Mode.STALLED),
            ChronicleVariant::new,
            TcpFloorVariant::new,
            ThreadedTcpFloorVariant::new,
            ClientTcpFloorVariant::new,
            () -> new ReplicatedVariant(1),
            () -> new ReplicatedVariant(2),
            () -> new ReplicatedVariant(5),
            () -> new ReplicatedVariant(10),
            () -> new ReplicatedVariant(20),
            ReplicatedVariant::invoked,
            ReplicatedVariant::insecure,
            () -> new PublishVariant(1),
            () -> new PublishVariant(2),
            () -> new PublishVariant(5),
            () -> new PublishVariant(10),
            () -> new PublishVariant(20),
            StageVariant::written,
            StageVariant::acked,
            StageVariant::ackedByAnyOfTwo,
            StageVariant::ackedByTwoOfTwo,
            StageVariant::asyncAcked,
            StageVariant::syncAcked,
            StageVariant::sync10Acked,
            StageVariant::ackedOrSynced,
            StageVariant::ackedOrSyncedDown,
            () -> StageVariant.acked().invoked(),
            () -> StageVariant.asyncAcked().invoked(),
            () -> StageVariant.sync10Acked().invoked(),
            GatewayVariant::threaded,
            GatewayVariant::invoked,
            SyncVariant::async,
            SyncVariant::everyMessage,
            SyncVariant::byContent,
            GroupCommitVariant::new,
            ChronicleSyncVariant::async,
            ChronicleSyncVariant::everyMessage,
            ChronicleSyncVariant::byContent);

    private LatencyVariants() {
    }

    /** @return the names of every variant, in running order. */
    public static List<String> names() {
        final List<String> names = new ArrayList<>();
        for (final Supplier<LatencyVariant> variant : ALL) {
            names.add(variant.get().name());
        }
        return names;
    }

    /**
     * @param name a variant's name.
     * @return a new instance of it.
     * @throws IllegalArgumentException if there is no such variant.
     */
    public static LatencyVariant create(final String name) {
        for (final Supplier<LatencyVariant> variant : ALL) {
            final LatencyVariant instance = variant.get();
            if (instance.name().equals(name)) {
                return instance;
            }
        }
        throw new IllegalArgumentException("unknown variant '" + name + "'; the variants are " + names());
    }
}
