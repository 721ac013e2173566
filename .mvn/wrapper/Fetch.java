import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.util.HexFormat;

/**
 * The wrapper's fallback on machines without curl or wget, run with the JDK's source launcher:
 * {@code java Fetch.java URL FILE} downloads, {@code java Fetch.java --sha512 FILE} prints the digest.
 */
public final class Fetch {
    public static void main(final String[] args) throws Exception {
        if (args.length == 2 && args[0].equals("--sha512")) {
            final MessageDigest digest = MessageDigest.getInstance("SHA-512");
            System.out.println(HexFormat.of().formatHex(digest.digest(Files.readAllBytes(Path.of(args[1])))));
            return;
        }
        if (args.length != 2) {
            System.err.println("usage: java Fetch.java URL FILE | java Fetch.java --sha512 FILE");
            System.exit(2);
        }
        try (InputStream in = URI.create(args[0]).toURL().openStream()) {
            Files.copy(in, Path.of(args[1]), StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
