package dev.spool.processor;

import javax.lang.model.element.AnnotationMirror;
import javax.lang.model.element.AnnotationValue;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.Modifier;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.element.VariableElement;
import javax.lang.model.type.ArrayType;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.type.WildcardType;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Elements;
import javax.lang.model.util.Types;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an {@code @Events} interface into an {@link EventsModel}, checking that every method can be encoded. Each
 * problem is an {@link Invalid} naming the element, the method and why, which the processor reports as a
 * compile error on that element.
 */
final class ModelReader {
    static final String EVENTS = "dev.spool.queue.typed.Events";
    static final String METHOD_ID = "dev.spool.queue.typed.MethodId";
    static final String FIXED = "dev.spool.queue.typed.Fixed";
    static final String BYTES = "net.openhft.chronicle.bytes.Bytes";
    static final String MARSHALLABLE = "net.openhft.chronicle.bytes.BytesMarshallable";
    /** Pinned method ids are 1..MAX_PINNED_ID; derived ones are above it, so the two never collide. */
    static final int MAX_PINNED_ID = 0x7FFF;
    static final int MAX_ID = 0xFFFF;

    private final Elements elements;
    private final Types types;
    /** The package of the interface being read, where the generated code lives. */
    private String eventsPackage;

    ModelReader(final Elements elements, final Types types) {
        this.elements = elements;
        this.types = types;
    }

    /** A method or type the processor cannot encode: reported as an error on {@link #element}. */
    static final class Invalid extends Exception {
        private static final long serialVersionUID = 1L;
        final transient Element element;

        Invalid(final Element element, final String message) {
            super(message, null, false, false);
            this.element = element;
        }
    }

    EventsModel read(final TypeElement type) throws Invalid {
        if (type.getKind() != ElementKind.INTERFACE) {
            throw new Invalid(type, "@Events " + type + " is not an interface");
        }
        if (!type.getTypeParameters().isEmpty()) {
            throw new Invalid(type, "@Events " + type + " has type parameters; a typed message needs concrete types");
        }
        if (type.getNestingKind() == NestingKind.LOCAL || type.getNestingKind() == NestingKind.ANONYMOUS) {
            throw new Invalid(type, "@Events " + type + " is local; declare it top-level or as a member");
        }
        final String packageName = elements.getPackageOf(type).getQualifiedName().toString();
        eventsPackage = packageName;
        final String qualified = type.getQualifiedName().toString();
        final String flatName = (packageName.isEmpty() ? qualified : qualified.substring(packageName.length() + 1))
                .replace('.', '_');
        final int pinned = intValue(type, EVENTS, "id", 0);
        if (pinned < 0 || pinned > MAX_ID) {
            throw new Invalid(type, "@Events(id=" + pinned + ") of " + type + " is outside 1.." + MAX_ID);
        }
        final int derived = qualified.hashCode() & MAX_ID;
        final int id = pinned != 0 ? pinned : derived == 0 ? 1 : derived;
        final List<Method> methods = new ArrayList<>();
        final Map<Integer, ExecutableElement> ids = new HashMap<>();
        for (final ExecutableElement method : ElementFilter.methodsIn(elements.getAllMembers(type))) {
            if (!method.getModifiers().contains(Modifier.ABSTRACT)) {
                continue;
            }
            final Method read = method(type, method);
            final ExecutableElement clash = ids.putIfAbsent(read.id(), method);
            if (clash != null) {
                throw new Invalid(method, name(type, method) + ": method id " + read.id() + " is also the id of "
                        + name(type, clash) + "; pin distinct ids with @MethodId");
            }
            methods.add(read);
        }
        if (methods.isEmpty()) {
            throw new Invalid(type, "@Events " + type + " has no abstract method to write");
        }
        return new EventsModel(type, packageName, flatName, id, methods);
    }

    private Method method(final TypeElement events, final ExecutableElement method) throws Invalid {
        final String name = name(events, method);
        if (method.getReturnType().getKind() != TypeKind.VOID) {
            throw new Invalid(method, name + ": returns " + method.getReturnType()
                    + ": a method writer appends and cannot return a value; declare it void");
        }
        if (!method.getTypeParameters().isEmpty()) {
            throw new Invalid(method, name + ": has type parameters; a typed message needs concrete types");
        }
        final int pinned = intValue(method, METHOD_ID, "value", -1);
        if (pinned != -1 && (pinned < 1 || pinned > MAX_PINNED_ID)) {
            throw new Invalid(method, name + ": @MethodId(" + pinned + ") is outside 1.." + MAX_PINNED_ID);
        }
        final int id = pinned != -1 ? pinned : MAX_PINNED_ID + 1 + (method.getSimpleName().toString().hashCode() & MAX_PINNED_ID);
        final List<Field> parameters = new ArrayList<>();
        for (final VariableElement parameter : method.getParameters()) {
            parameters.add(field(name, parameter, parameter.getSimpleName().toString(), true, new ArrayDeque<>()));
        }
        return new Method(method, id, parameters);
    }

    private Field field(final String method, final VariableElement variable, final String path, final boolean parameter,
                        final Deque<TypeElement> enclosing) throws Invalid {
        final TypeMirror type = variable.asType();
        final String what = method + ": " + (parameter ? "parameter " : "field ") + path + " of type " + type;
        final int fixed = intValue(variable, FIXED, "value", 0);
        if (fixed < 0 || fixed > MAX_ID || fixed == 0 && hasAnnotation(variable, FIXED)) {
            throw new Invalid(variable, what + ": @Fixed(" + fixed + ") is outside 1.." + MAX_ID);
        }
        final String name = variable.getSimpleName().toString();
        if (type.getKind().isPrimitive()) {
            refuseFixed(variable, what, fixed);
            return new Field(name, type, Kind.valueOf(type.getKind().name()), 0, null, List.of(), List.of());
        }
        if (type.getKind() == TypeKind.ARRAY) {
            if (((ArrayType) type).getComponentType().getKind() != TypeKind.BYTE) {
                throw new Invalid(variable, what + " cannot be encoded: the only array is byte[] with @Fixed(length)");
            }
            if (fixed == 0) {
                throw new Invalid(variable, what + " needs @Fixed(length): a byte[] of varying length would be "
                        + "allocated on every read; use Bytes<?> for varying lengths");
            }
            return new Field(name, type, Kind.FIXED_BYTES, fixed, null, List.of(), List.of());
        }
        if (type.getKind() != TypeKind.DECLARED) {
            throw new Invalid(variable, what + " cannot be encoded: not a primitive, enum, string, byte[], Bytes<?>, "
                    + "message class or BytesMarshallable");
        }
        final DeclaredType declared = (DeclaredType) type;
        final TypeElement element = (TypeElement) declared.asElement();
        final String qualified = element.getQualifiedName().toString();
        if (qualified.equals("java.lang.String")) {
            throw new Invalid(variable, what + " cannot be encoded without garbage: a String would be allocated on "
                    + "every read; declare " + (parameter ? "CharSequence (the reader passes a reused StringBuilder)"
                    : "StringBuilder or CharSequence (the reader fills a reused StringBuilder)"));
        }
        if (qualified.equals("java.lang.CharSequence") || qualified.equals("java.lang.StringBuilder")) {
            return new Field(name, type, fixed == 0 ? Kind.STRING : Kind.FIXED_STRING, fixed, null, List.of(), List.of());
        }
        if (qualified.equals(BYTES)) {
            refuseFixed(variable, what, fixed);
            if (declared.getTypeArguments().size() != 1 || !(declared.getTypeArguments().get(0) instanceof WildcardType)
                    || ((WildcardType) declared.getTypeArguments().get(0)).getExtendsBound() != null
                    || ((WildcardType) declared.getTypeArguments().get(0)).getSuperBound() != null) {
                throw new Invalid(variable, what + ": declare it Bytes<?>, which the reader fills with a reused buffer");
            }
            return new Field(name, type, Kind.BYTES, 0, null, List.of(), List.of());
        }
        refuseFixed(variable, what, fixed);
        if (element.getKind() == ElementKind.ENUM) {
            final List<String> constants = new ArrayList<>();
            for (final Element member : element.getEnclosedElements()) {
                if (member.getKind() == ElementKind.ENUM_CONSTANT) {
                    constants.add(member.getSimpleName().toString());
                }
            }
            if (constants.size() > MAX_ID) {
                throw new Invalid(variable, what + ": an enum of more than " + MAX_ID + " constants cannot be encoded");
            }
            return new Field(name, type, Kind.ENUM, 0, element, constants, List.of());
        }
        if (element.getKind() != ElementKind.CLASS || element.getModifiers().contains(Modifier.ABSTRACT)
                || !declared.getTypeArguments().isEmpty() || qualified.startsWith("java.")) {
            throw new Invalid(variable, what + " cannot be encoded: not a primitive, enum, CharSequence/StringBuilder, "
                    + "byte[], Bytes<?>, concrete message class or BytesMarshallable");
        }
        checkConstructor(variable, what, element);
        final TypeElement marshallable = elements.getTypeElement(MARSHALLABLE);
        if (marshallable != null && types.isAssignable(type, types.erasure(marshallable.asType()))) {
            return new Field(name, type, Kind.MARSHALLABLE, 0, element, List.of(), List.of());
        }
        if (enclosing.contains(element)) {
            throw new Invalid(variable, what + " cannot be encoded: message " + qualified + " contains itself");
        }
        enclosing.push(element);
        final List<Field> fields = new ArrayList<>();
        for (final VariableElement member : ElementFilter.fieldsIn(element.getEnclosedElements())) {
            if (member.getModifiers().contains(Modifier.STATIC) || member.getModifiers().contains(Modifier.TRANSIENT)) {
                continue;
            }
            final String fieldWhat = method + ": field " + path + "." + member.getSimpleName() + " of " + qualified;
            if (member.getModifiers().contains(Modifier.PRIVATE) || member.getModifiers().contains(Modifier.FINAL)) {
                throw new Invalid(member, fieldWhat + " is private or final: the generated code writes and reads message "
                        + "fields directly; make it non-private and non-final, or transient to leave it out");
            }
            checkAccess(member, fieldWhat, element);
            fields.add(field(method, member, path + "." + member.getSimpleName(), false, enclosing));
        }
        enclosing.pop();
        return new Field(name, type, Kind.MESSAGE, 0, element, List.of(), List.copyOf(fields));
    }

    private void checkConstructor(final VariableElement variable, final String what, final TypeElement element) throws Invalid {
        if (element.getNestingKind() == NestingKind.MEMBER && !element.getModifiers().contains(Modifier.STATIC)) {
            throw new Invalid(variable, what + ": " + element + " is an inner class; make it static");
        }
        for (final ExecutableElement constructor : ElementFilter.constructorsIn(element.getEnclosedElements())) {
            if (constructor.getParameters().isEmpty() && !constructor.getModifiers().contains(Modifier.PRIVATE)) {
                checkAccess(constructor, what + ": its no-argument constructor", element);
                return;
            }
        }
        throw new Invalid(variable, what + ": " + element + " needs a non-private no-argument constructor, for the "
                + "one instance the reader reuses");
    }

    /** The generated classes live in the interface's package: a member of another package must be public. */
    private void checkAccess(final Element member, final String what, final TypeElement owner) throws Invalid {
        if (!member.getModifiers().contains(Modifier.PUBLIC)
                && !packageOf(owner).getQualifiedName().contentEquals(eventsPackage)) {
            throw new Invalid(member, what + " is not public, and " + owner + " is not in " + eventsPackage
                    + ", the package of the interface and of the generated code");
        }
    }

    private static void refuseFixed(final VariableElement variable, final String what, final int fixed) throws Invalid {
        if (fixed != 0) {
            throw new Invalid(variable, what + ": @Fixed applies only to strings and byte[]");
        }
    }

    private static String name(final TypeElement events, final ExecutableElement method) {
        return events.getSimpleName() + "." + method.getSimpleName();
    }

    private static boolean hasAnnotation(final Element element, final String annotation) {
        return annotation(element, annotation) != null;
    }

    private static AnnotationMirror annotation(final Element element, final String annotation) {
        for (final AnnotationMirror mirror : element.getAnnotationMirrors()) {
            if (((TypeElement) mirror.getAnnotationType().asElement()).getQualifiedName().contentEquals(annotation)) {
                return mirror;
            }
        }
        return null;
    }

    private static int intValue(final Element element, final String annotation, final String name, final int absent) {
        final AnnotationMirror mirror = annotation(element, annotation);
        if (mirror == null) {
            return absent;
        }
        for (final Map.Entry<? extends ExecutableElement, ? extends AnnotationValue> entry : mirror.getElementValues().entrySet()) {
            if (entry.getKey().getSimpleName().contentEquals(name)) {
                return (Integer) entry.getValue().getValue();
            }
        }
        return absent;
    }

    static PackageElement packageOf(final Element element) {
        Element at = element;
        while (!(at instanceof PackageElement)) {
            at = at.getEnclosingElement();
        }
        return (PackageElement) at;
    }
}
