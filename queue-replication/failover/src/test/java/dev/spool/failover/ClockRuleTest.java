package dev.spool.failover;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import org.agrona.concurrent.NanoClock;
import org.agrona.concurrent.SystemNanoClock;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.function.LongSupplier;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link ArchitectureTest}'s clock rule catches each way of reading a system clock, planted in a class of its own. */
class ClockRuleTest {
    @Test
    void shouldRefuseEachReadOfASystemClockOutsideTheBuilder() {
        for (final Class<?> planted : new Class<?>[] {ReadsTheNanoClockInstance.class, RefersToNanoTime.class,
            CallsInstantNow.class}) {
            final JavaClasses classes = new ClassFileImporter().importClasses(planted);
            final AssertionError refused = assertThrows(AssertionError.class,
                    () -> ArchitectureTest.readsTheClockOnlyThroughItsConfig.check(classes), planted.getName());
            assertTrue(refused.getMessage().contains(planted.getSimpleName()), refused.getMessage());
        }
    }

    @Test
    void shouldLetAClassReadItsConfigsClock() {
        ArchitectureTest.readsTheClockOnlyThroughItsConfig.check(
                new ClassFileImporter().importClasses(ReadsAGivenClock.class));
    }

    static final class ReadsTheNanoClockInstance {
        NanoClock clock() {
            return SystemNanoClock.INSTANCE;
        }
    }

    static final class RefersToNanoTime {
        LongSupplier clock() {
            return System::nanoTime;
        }
    }

    static final class CallsInstantNow {
        Instant now() {
            return Instant.now();
        }
    }

    static final class ReadsAGivenClock {
        long now(final NanoClock clock) {
            return clock.nanoTime();
        }
    }
}
