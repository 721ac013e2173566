package dev.spool.queue.typed;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Pins the id a method of an {@link Events} interface is written with. Without it the id derives from the method's
 * name (stable across reordering and additions, not across a rename); the processor fails the build when two
 * methods of one interface would share an id.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target(ElementType.METHOD)
public @interface MethodId {
    /** @return the method id, 1..32767; derived ids use 32768..65535, so pinned ids never collide with them. */
    int value();
}
