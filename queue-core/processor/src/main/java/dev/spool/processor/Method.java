package dev.spool.processor;

import javax.lang.model.element.ExecutableElement;
import java.util.List;

/**
 * One method of an {@code @Events} interface.
 *
 * @param element    the method.
 * @param id         its method id.
 * @param parameters its parameters, in order.
 */
record Method(ExecutableElement element, int id, List<Field> parameters) {
    String name() {
        return element.getSimpleName().toString();
    }
}
