package dev.spool.queue;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Runs child JVMs as another user (nobody, 65534) or in a private mount namespace, for the tests of read-only
 * readers and file modes; both need root, and the tests are skipped with a message otherwise.
 */
final class OtherUser {
    static final int UID = 65534;
    static final int GID = 65534;

    private OtherUser() {
    }

    /** @return why the tests that switch user cannot run here, or null if they can. */
    static String whyNot() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "runs as " + System.getProperty("user.name") + ", not root: cannot start a JVM as another user";
        }
        return works(List.of("setpriv", "--reuid=" + UID, "--regid=" + GID, "--clear-groups", "true"))
                ? null : "setpriv cannot switch to uid " + UID;
    }

    /** @return why a read-only bind mount cannot be made here, or null if it can. */
    static String whyNoMount() {
        if (!"root".equals(System.getProperty("user.name"))) {
            return "runs as " + System.getProperty("user.name") + ", not root: cannot make a read-only bind mount";
        }
        return works(List.of("unshare", "-m", "sh", "-c", "mount --bind / /mnt && mount -o remount,bind,ro /mnt"))
                ? null : "unshare -m cannot make a read-only bind mount here";
    }

    /** @return the prefix that runs a command as uid/gid 65534 with no other groups. */
    static List<String> asNobody() {
        return List.of("setpriv", "--reuid=" + UID, "--regid=" + GID, "--clear-groups");
    }

    /** @return the prefix that runs a command in a mount namespace where {@code directory} is mounted read-only. */
    static List<String> withReadOnlyMount(final Path directory) {
        final String d = directory.toAbsolutePath().toString();
        return List.of("unshare", "-m", "sh", "-c", "mount --bind '" + d + "' '" + d + "' && mount -o remount,bind,ro '"
                + d + "' '" + d + "' && exec \"$0\" \"$@\"");
    }

    /**
     * @param into a directory that every user may read.
     * @return this JVM's class path, with each jar and each class directory copied into {@code into}: the local
     * Maven repository and the build's own target directories may sit below a directory that another user cannot
     * enter (a root user's home is 0700).
     */
    static String readableClassPath(final Path into) throws IOException {
        makeReadable(Files.createDirectories(into));
        final List<String> entries = new ArrayList<>();
        int n = 0;
        for (final String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            final Path path = Path.of(entry);
            if (Files.isRegularFile(path) || Files.isDirectory(path)) {
                final Path copy = into.resolve((n++) + "-" + path.getFileName());
                copyReadable(path, copy);
                entries.add(copy.toString());
            } else {
                entries.add(entry);
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    private static void copyReadable(final Path from, final Path to) throws IOException {
        try (Stream<Path> tree = Files.walk(from)) {
            for (final Path source : (Iterable<Path>) tree::iterator) {
                final Path target = to.resolve(from.relativize(source).toString());
                if (Files.isDirectory(source)) {
                    makeReadable(Files.createDirectories(target));
                } else {
                    Files.copy(source, target, StandardCopyOption.REPLACE_EXISTING);
                    Files.setPosixFilePermissions(target, PosixFilePermissions.fromString("rw-r--r--"));
                }
            }
        }
    }

    private static void makeReadable(final Path directory) throws IOException {
        Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static boolean works(final List<String> command) {
        try {
            final Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
            return process.waitFor(30, TimeUnit.SECONDS) && process.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
