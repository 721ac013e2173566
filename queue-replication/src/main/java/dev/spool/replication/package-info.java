/**
 * TCP replication of a queue to one or more replicas at the same indices. {@link dev.spool.replication.ReplicationSource}
 * tails a primary queue and ships its excerpts in batches to each of its sinks, with the queue's typed schema files
 * ahead of the excerpts that need them; {@link dev.spool.replication.ReplicationSink} writes
 * them into a replica queue and acknowledges them; {@link dev.spool.replication.CommitWaiter} lets a writer wait
 * for the {@link dev.spool.replication.CommitStage} it chose for each message; a sink's
 * {@link dev.spool.replication.ReplicationSink#promote()} turns the replica into the primary of a new term, which
 * fences the old one, and {@link dev.spool.replication.Failover} reads a queue's
 * {@link dev.spool.replication.ReplicationRole role}, term and acknowledged index, and promotes a stopped replica. {@link dev.spool.replication.PublishGateway} and {@link dev.spool.replication.PublishClient}
 * carry publishes and their commits over TCP; each publish carries its client's id and sequence, so that a gateway on
 * a queue with publisher ids writes a publish sent again only once, and a client built with a
 * {@link dev.spool.replication.GatewayLocator} follows the primary after a failover and sends again what was not
 * committed.
 * <p>
 * Secure by default: each service needs a shared secret, or {@code insecure()} said on its builder. Peers prove the
 * secret to each other (HMAC-SHA256 challenge-response over the whole handshake) before anything they send is acted
 * on, and every later frame carries a MAC bound to the session; nothing is encrypted (docs/operations/security.md, "Security
 * model").
 * <p>
 * The source, the sink and the gateway are Agrona {@link org.agrona.concurrent.Agent agents}: each runs on a thread
 * of its own through an {@link org.agrona.concurrent.AgentRunner} with an idle strategy, or, built {@code invoked()},
 * in the application's own duty cycle (directly, an {@code AgentInvoker}, a {@code CompositeAgent}).
 * <p>
 * This package is the API. Not API, and package-private here: {@code ServiceBuilder} (what the three service
 * builders share), each component's concluded settings ({@code GatewayConfig}, {@code ClientConfig}), the gateway's
 * per-connection state, waiting commits, table of each client id's writer epoch and last publishes and the rules
 * of writer identity ({@code GatewayClient}, {@code PendingCommits}, {@code Writers}, {@code WriterFence},
 * {@code WriterException}) and the MXBeans'
 * implementations, which {@link dev.spool.replication.ServiceMetrics} hands out for a process that registers them
 * under names of its own. The rest lives in packages below this one, none of them API, each with its own
 * {@code package-info}: {@code protocol} (frames, codec, MACs, handshakes, connection), {@code source} and
 * {@code sink} (each end's agent and its concluded settings) and {@code agent} (how a service runs). This package
 * uses them; they never use it, and {@code protocol} uses none of the others. What they need from a queue beyond its
 * API comes from queue-core's {@code dev.spool.queue.internal}, which no public signature here exposes.
 */
package dev.spool.replication;
