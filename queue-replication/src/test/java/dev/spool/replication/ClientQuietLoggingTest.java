package dev.spool.replication;

import dev.spool.queue.ChildJvm;
import dev.spool.queue.SpoolQueue;
import dev.spool.queue.SpoolTestBase;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.*;

/**
 * A process that only publishes through a gateway (no queue of its own, so no {@code SpoolQueue} loads) keeps
 * Chronicle's INFO start-up lines out of its log too, with slf4j-simple, no flag and none of the tests' logging
 * configuration.
 */
class ClientQuietLoggingTest extends SpoolTestBase {

    /** {@code port}: connects a {@link PublishClient} to the gateway there, publishes and awaits the commit. */
    public static final class PublishOnly {
        /** The gateway's secret; the child loads no test class but this one. */
        static final byte[] SECRET = "a client-only process's secret".getBytes(StandardCharsets.US_ASCII);

        public static void main(final String[] args) {
            final InetSocketAddress gateway = new InetSocketAddress(InetAddress.getLoopbackAddress(),
                    Integer.parseInt(args[0]));
            try (PublishClient client = PublishClient.builder(gateway, 64).sharedSecret(SECRET).connect()) {
                client.awaitCommit(client.publish(new byte[8], 0, 8, CommitStage.WRITTEN), 30, TimeUnit.SECONDS);
            }
            System.out.println("DONE");
        }
    }

    @Test
    void shouldKeepChronicleStartUpLinesOutOfAClientOnlyProcess() throws Exception {
        final Path stderr = tempDir.resolve("client.err");
        try (SpoolQueue primary = SpoolQueue.builder(tempDir.resolve("primary")).chunkLength(1 << 20).openOrCreate();
             PublishGateway gateway = PublishGateway.builder(primary, null).sharedSecret(PublishOnly.SECRET).start();
             ChildJvm child = ChildJvm.startWrapped(List.of(), classPathWithoutTestLogging(), PublishOnly.class,
                     stderr, Integer.toString(gateway.address().getPort()))) {
            assertEquals("DONE", child.awaitLine("DONE", 60, TimeUnit.SECONDS), child.stderrTail());
            assertEquals(0, child.awaitExit(60, TimeUnit.SECONDS), child.stderrTail());
            assertEquals(1, primary.lastIndex() - primary.firstIndex() + 1, "the client published");
        }
        final String log = Files.readString(stderr);
        assertFalse(log.contains("Chronicle core loaded"), log);
        assertFalse(log.contains("INFO net.openhft"), log);
    }

    /**
     * @return this JVM's class path without the tests' {@code simplelogger.properties}: directories are copied without
     * it, and a jar holding it (the test jar of queue-core, which a client does not need) is left out.
     */
    private String classPathWithoutTestLogging() throws IOException {
        final List<String> entries = new ArrayList<>();
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            final Path path = Path.of(entry);
            if (Files.isDirectory(path) && Files.exists(path.resolve("simplelogger.properties"))) {
                final Path copy = tempDir.resolve("classes-" + entries.size());
                try (Stream<Path> files = Files.walk(path)) {
                    for (final Path file : (Iterable<Path>) files::iterator) {
                        final Path target = copy.resolve(path.relativize(file).toString());
                        if (Files.isDirectory(file)) {
                            Files.createDirectories(target);
                        } else if (!file.getFileName().toString().equals("simplelogger.properties")) {
                            Files.copy(file, target);
                        }
                    }
                }
                entries.add(copy.toString());
            } else if (!isJarWithTestLogging(path)) {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static boolean isJarWithTestLogging(final Path path) throws IOException {
        if (!Files.isRegularFile(path) || !path.toString().endsWith(".jar")) {
            return false;
        }
        try (ZipFile jar = new ZipFile(path.toFile())) {
            return jar.getEntry("simplelogger.properties") != null;
        }
    }
}
