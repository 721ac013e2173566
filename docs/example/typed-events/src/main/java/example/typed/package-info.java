/**
 * Recipe: typed events. An {@code @Events} interface and its message class, written through the method writer and
 * read back through the method reader that spool-processor generates at build time.
 */
package example.typed;
