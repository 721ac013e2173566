package dev.spool.importer;

/**
 * A {@link ChronicleBridge} in JMX, registered as {@code dev.spool:type=Bridge,name="<Spool queue directory>"};
 * its thread's errors are in the {@code dev.spool:type=Agent} MBean beside it.
 */
public interface BridgeMXBean {
    /** @return the Chronicle Queue followed. */
    String getChronicleDirectory();

    /** @return the Spool queue written. */
    String getSpoolDirectory();

    /** @return the data documents copied since the bridge started. */
    long getDocumentsCopied();

    /** @return their payload bytes. */
    long getBytesCopied();

    /** @return the metadata documents passed and not copied since the bridge started. */
    long getMetadataSkipped();

    /** @return the Chronicle index of the last document copied (or found copied at the start); -1 if none. */
    long getLastChronicleIndex();

    /** @return the Spool index it was written at; -1 if none. */
    long getLastSpoolIndex();

    /**
     * @return the data documents the Chronicle Queue held, at the bridge's last check, after the last one copied:
     * how far the Spool queue is behind. Checked at most every {@link ChronicleBridge#LAG_CHECK_INTERVAL}, on the
     * bridge's thread.
     */
    long getLagDocuments();

    /** @return true until the bridge is closed or stopped on an error. */
    boolean isRunning();
}
