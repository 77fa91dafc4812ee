package io.spannercs.benchmarks;

/**
 * What one reader read: row changes, their {@link Checksum}, and when the first and the last
 * arrived ({@link System#nanoTime()}), so throughput excludes the fixed cost of starting up.
 *
 * @param wallNanos from the start of the read (query issued, job submitted) to its end
 */
record ReadResult(long rowChanges, long checksum, long firstNanos, long lastNanos, long wallNanos) {

    /** A reader that did not run. */
    static final ReadResult NONE = new ReadResult(0, 0, 0, 0, 0);

    /** Row changes per second between the first and the last one. */
    double perSecond() {
        long span = lastNanos - firstNanos;
        return span <= 0 ? 0 : rowChanges * 1e9 / span;
    }

    /** Fails loudly unless exactly the preloaded changes were read, each once. */
    void verify(String reader, Preloader.Preloaded expected) {
        if (rowChanges != expected.rowChanges() || checksum != expected.checksum()) {
            throw new IllegalStateException(
                    reader
                            + " read "
                            + rowChanges
                            + " row changes (checksum "
                            + Long.toHexString(checksum)
                            + ") but "
                            + expected.rowChanges()
                            + " were committed (checksum "
                            + Long.toHexString(expected.checksum())
                            + ")");
        }
    }
}
