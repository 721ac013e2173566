package dev.spool.queue.typed;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Writes a string or byte array in exactly {@link #value()} bytes: a string as ISO-8859-1, zero-padded (a longer
 * value, or a character above U+00FF, is an error naming the method and field); a {@code byte[]} must have exactly
 * that length. Required on {@code byte[]}, optional on strings (which are otherwise UTF-8 of any length).
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.FIELD, ElementType.PARAMETER})
public @interface Fixed {
    /** @return the length in bytes, 1..65535. */
    int value();
}
