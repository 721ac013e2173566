package dev.spool.processor;

import javax.lang.model.element.TypeElement;
import java.util.List;

/**
 * An {@code @Events} interface as the generators see it.
 *
 * @param type        the interface.
 * @param packageName its package.
 * @param flatName    its name within the package, nested names joined by '_': the generated classes' prefix.
 * @param id          its events id.
 * @param methods     its methods, by id.
 */
record EventsModel(TypeElement type, String packageName, String flatName, int id, List<Method> methods) {
    /** @return the name errors use for a method: {@code OrderEvents.newOrder}. */
    String qualified(final Method method) {
        return type.getSimpleName() + "." + method.name();
    }
}
