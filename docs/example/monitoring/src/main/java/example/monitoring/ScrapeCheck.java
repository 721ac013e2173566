package example.monitoring;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Starts {@link MonitoredService} in a JVM of its own with Prometheus's JMX exporter as a Java agent and the
 * recipe's {@code prometheus/spool.yaml}, scrapes {@code /metrics} as Prometheus would, and checks that the gauges
 * docs/monitoring.md names are there with the values the service's state implies. Prints them and "OK"; exits
 * non-zero, saying what is missing, otherwise.
 */
public final class ScrapeCheck {
    /** Gauges and the least value each must have once the service is ready. */
    private static final List<Gauge> EXPECTED = List.of(
            new Gauge("spool_queue_lastindex", named("primary"), 0),
            new Gauge("spool_queue_appends", named("primary"), 0),
            new Gauge("spool_queue_acklag", named("primary"), 0),
            new Gauge("spool_queue_lastackedindex", named("primary"), 0),
            new Gauge("spool_queue_namedtailerlag", named("primary") + ",tailer=\"risk\"",
                    MonitoredService.ORDERS / 2),
            new Gauge("spool_ring_occupancy", named("primary.ring"), 0),
            new Gauge("spool_ring_drainedrecords", named("primary.ring"), MonitoredService.ORDERS),
            new Gauge("spool_ring_backpressureevents", named("primary.ring"), 0),
            new Gauge("spool_ring_drainlagmillis", named("primary.ring"), 0),
            new Gauge("spool_replicationsource_connectedreplicas", named("primary"), 1),
            new Gauge("spool_replicationsource_quorumackedindex", named("primary"), 0),
            new Gauge("spool_replicationsink_connected", named("replica"), 1),
            new Gauge("spool_replicationsink_lastindex", named("replica"), 0),
            new Gauge("spool_agent_errorcount", named("primary.ring") + ",role=\"[^\"]*\"", 0),
            new Gauge("spool_agent_running", named("primary.ring") + ",role=\"[^\"]*\"", 1),
            // the failover nodes: each node's own MBean, named by its id, and the role MBeans labelled with it
            new Gauge("spool_clusternode_term", "name=\"[ab]\"", 1),
            new Gauge("spool_clusternode_promotions", "name=\"[ab]\"", 0),
            new Gauge("spool_clusternode_lastindex", "name=\"[ab]\"", 0),
            new Gauge("spool_clusternode_sessiontimeoutmillis", "name=\"[ab]\"", 1),
            new Gauge("spool_publishgateway_resentpublishes", named("node-[ab]") + ",node=\"[ab]\"", 0),
            new Gauge("spool_replicationsource_quorumackedindex", named("node-[ab]") + ",node=\"[ab]\"", 0),
            new Gauge("spool_replicationsink_connected", named("node-[ab]") + ",node=\"[ab]\"", 1));

    private ScrapeCheck() {
    }

    /**
     * Runs the recipe.
     *
     * @param args the directory for the queues (a new one inside it each run), the exporter agent's jar and its
     *             configuration.
     * @throws Exception if the service cannot be started or scraped.
     */
    public static void main(final String[] args) throws Exception {
        final Path work = Files.createTempDirectory(Files.createDirectories(Path.of(args[0])), "monitoring-");
        final Path agent = Path.of(args[1]);
        final Path config = Path.of(args[2]);
        final int port = freePort();

        final List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        // the exporter serves the MBeans of the JVM it is an agent of, on the loopback address only
        command.add("-javaagent:" + agent + "=127.0.0.1:" + port + ":" + config);
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), MonitoredService.class.getName(),
                work.toString()));
        final Process service = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader lines = new BufferedReader(
                new InputStreamReader(service.getInputStream(), StandardCharsets.UTF_8))) {
            final String line = lines.readLine();
            if (!"ready".equals(line)) {
                throw new IllegalStateException("the service did not get ready: it printed " + line
                        + (service.isAlive() ? "" : " and exited with status " + service.waitFor()));
            }
            final String metrics = scrape(port);
            final List<String> problems = new ArrayList<>();
            for (final Gauge gauge : EXPECTED) {
                final String sample = gauge.find(metrics);
                if (sample == null) {
                    problems.add(gauge.name + "{" + gauge.labels + "} is missing");
                    continue;
                }
                final double value = Double.parseDouble(sample.substring(sample.lastIndexOf(' ') + 1));
                if (value < gauge.least) {
                    problems.add(sample + ": expected at least " + gauge.least);
                } else {
                    System.out.println(sample);
                }
            }
            if (!problems.isEmpty()) {
                throw new IllegalStateException("scraped http://127.0.0.1:" + port + "/metrics with " + config + ": "
                        + String.join("; ", problems));
            }
        } finally {
            service.destroy();
            service.waitFor();
        }
        System.out.println("OK: " + EXPECTED.size() + " Spool gauges scraped through the JMX exporter with " + config);
    }

    /** Scrapes once: the agent listens from before the service's main starts, so it answers once the service is ready. */
    private static String scrape(final int port) throws IOException, InterruptedException {
        final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        final HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                .timeout(Duration.ofSeconds(10)).build();
        final HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new IllegalStateException("GET /metrics answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    /** @return the label a gauge of an MBean has whose name (a directory or a path) ends as given (a regex). */
    private static String named(final String suffix) {
        return "name=\"[^\"]*" + suffix + "\"";
    }

    /** A gauge the scrape must show, with labels that match a regex, with at least a value. */
    private record Gauge(String name, String labels, double least) {
        /** @return its first sample in the scrape whose labels match, or null if none does. */
        String find(final String metrics) {
            final Matcher sample = Pattern.compile("^" + name + "\\{(?:" + labels + ")\\} \\S+$", Pattern.MULTILINE)
                    .matcher(metrics);
            return sample.find() ? sample.group() : null;
        }
    }
}
