package dev.spool.queue.typed;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an interface whose calls are messages: the {@code spool-processor} generates its method writer and reader.
 * Every abstract method returns void; its parameters and the message classes they use may hold primitives, enums,
 * {@code CharSequence} / {@code StringBuilder} (optionally {@link Fixed}), {@code byte[]} ({@link Fixed}),
 * {@code Bytes}, nested message classes and {@code BytesMarshallable}s. The processor fails the build, naming the
 * method and the reason, for anything else.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Events {
    /**
     * @return the id written in every excerpt of this interface, 1..65535; 0 (the default) derives it from the
     * interface's canonical name, which then must not change. Pin it to rename or move the interface safely.
     */
    int id() default 0;
}
