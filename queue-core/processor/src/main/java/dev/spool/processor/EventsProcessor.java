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
import java.io.IOException;
import java.util.Set;

/**
 * Generates the method writer and reader of every interface annotated {@code dev.spool.queue.typed.Events}, or
 * fails the build with an error on the method that cannot be encoded, saying why. Put this artifact on the
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
        } catch (ModelReader.Invalid e) {
            processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR, e.getMessage(), e.element);
        } catch (IOException e) {
            processingEnv.getMessager().printMessage(Diagnostic.Kind.ERROR,
                    "spool-processor cannot write the generated classes of " + events + ": " + e, events);
        }
    }
}
