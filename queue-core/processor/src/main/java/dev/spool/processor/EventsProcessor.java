package dev.spool.processor;

import com.palantir.javapoet.JavaFile;
import com.palantir.javapoet.TypeSpec;

import javax.annotation.processing.AbstractProcessor;
import javax.annotation.processing.RoundEnvironment;
import javax.annotation.processing.SupportedAnnotationTypes;
import javax.lang.model.SourceVersion;
import javax.lang.model.element.Element;
import javax.lang.model.element.TypeElement;
import javax.tools.Diagnostic;
import javax.tools.FileObject;
import javax.tools.StandardLocation;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Set;

/**
 * Generates the method writer and reader of every interface annotated {@code dev.spool.queue.typed.Events}, or
 * fails the build with an error on the method that cannot be encoded, saying why; and, beside them, the GraalVM
 * native-image reflection metadata that creating them needs ({@link NativeImageMetadata}). Put this artifact on the
 * compiler's annotation processor path ({@code annotationProcessorPaths} in Maven, {@code annotationProcessor} in
 * Gradle): JDK 23 and later no longer run processors found on the class path.
 */
// claims @MethodId and @Fixed too: they mean something only to this processor, and -Xlint:processing warns of
// annotations no processor claims
@SupportedAnnotationTypes({ModelReader.EVENTS, ModelReader.METHOD_ID, ModelReader.FIXED})
public final class EventsProcessor extends AbstractProcessor {
    /** Created by the compiler, through {@code META-INF/services/javax.annotation.processing.Processor}. */
    public EventsProcessor() {
    }

    @Override
    public SourceVersion getSupportedSourceVersion() {
        return SourceVersion.latestSupported();
    }

    @Override
    public boolean process(final Set<? extends TypeElement> annotations, final RoundEnvironment round) {
        final ModelReader reader = new ModelReader(processingEnv.getElementUtils(), processingEnv.getTypeUtils());
        for (final TypeElement annotation : annotations) {
            if (annotation.getQualifiedName().contentEquals(ModelReader.EVENTS)) {
                for (final Element element : round.getElementsAnnotatedWith(annotation)) {
                    generate(reader, (TypeElement) element);
                }
            }
        }
        return true;
    }

    private void generate(final ModelReader reader, final TypeElement events) {
        try {
            final EventsModel model = reader.read(events);
            final TypeSpec writer = new WriterGenerator(model).generate(SchemaText.of(model));
            final TypeSpec decoder = new ReaderGenerator(model).generate();
            JavaFile.builder(model.packageName(), writer).skipJavaLangImports(true).build()
                    .writeTo(processingEnv.getFiler());
            JavaFile.builder(model.packageName(), decoder).skipJavaLangImports(true).build()
                    .writeTo(processingEnv.getFiler());
            writeNativeImageMetadata(model);
        } catch (ModelReader.Invalid e) {
            processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, e.getMessage(), e.element);
        } catch (IOException e) {
            processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR,
                    "spool-processor cannot write the generated classes or native-image metadata of " + events + ": " + e,
                    events);
        }
    }

    /**
     * Writes the reflection metadata GraalVM native-image needs to create the generated writer and reader, as a
     * resource of the class output. The interface is its originating element, so that an incremental build rewrites
     * or deletes the resource with the interface.
     */
    private void writeNativeImageMetadata(final EventsModel model) throws IOException {
        final NativeImageMetadata metadata = new NativeImageMetadata(
                processingEnv.getElementUtils().getBinaryName(model.type()).toString(), model.packageName(),
                model.flatName());
        final FileObject resource = processingEnv.getFiler()
                .createResource(StandardLocation.CLASS_OUTPUT, "", metadata.path(), model.type());
        try (OutputStream out = resource.openOutputStream()) {
            out.write(metadata.json().getBytes(StandardCharsets.US_ASCII));
        }
    }
}
