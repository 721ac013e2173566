/**
 * Not API: the replication protocol, shared by the source, the sink, the publish gateway and its client. The frame
 * layout, drawn once in {@link dev.spool.replication.protocol.FrameDescriptor}, and its codec, the only code that
 * touches frame offsets: {@link dev.spool.replication.protocol.FrameHeader} and one flyweight per frame type, whose
 * decoders check every field a peer sends and throw {@link dev.spool.replication.protocol.FrameException}. The
 * security of a session: {@link dev.spool.replication.protocol.Handshake} (nonces, HMACs over the transcript, session
 * keys, the secure-by-default checks), {@link dev.spool.replication.protocol.ClientHandshake} (the publish client's
 * and gateway's mutual proof), {@link dev.spool.replication.protocol.FrameMac} (the MAC after every later frame) and
 * {@link dev.spool.replication.protocol.AuthenticationException}. The transport:
 * {@link dev.spool.replication.protocol.Connection}, a non-blocking socket with two reused direct buffers, and the
 * gateway's bound on all its connections' buffers, {@link dev.spool.replication.protocol.BufferBudget}.
 * <p>
 * It depends on nothing else of replication. Its types are public only for the sibling packages; no public
 * signature of {@code dev.spool.replication} exposes them.
 */
package dev.spool.replication.protocol;
