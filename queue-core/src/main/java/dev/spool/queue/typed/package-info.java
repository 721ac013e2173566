/**
 * Typed messages: an application declares its events as an interface annotated {@link dev.spool.queue.typed.Events}
 * and plain mutable message classes; the {@code spool-processor} annotation processor generates, at build time, a
 * method writer (the interface's implementation that encodes each call into one excerpt through claim/commit) and a
 * method reader (that decodes an excerpt and calls the application's implementation), both allocation-free.
 * <p>
 * Applications use {@link dev.spool.queue.ExcerptAppender#methodWriter(Class)} and
 * {@link dev.spool.queue.ExcerptTailer#methodReader(Object)}; {@link dev.spool.queue.typed.ExcerptSink},
 * {@link dev.spool.queue.typed.TypedCodec}, {@link dev.spool.queue.typed.TypedCursor} and
 * {@link dev.spool.queue.typed.TypedDecoder} are public only for the generated code. The payload layout is
 * {@link dev.spool.queue.format.TypedExcerptDescriptor}.
 */
package dev.spool.queue.typed;
