package io.spannercs.benchmarks;

/**
 * What one reader read: row changes, their {@link Checksum}, and when the first and the last
 * arrived ({@link System#nanoTime()}), so throughput excludes the fixed cost of starting up.
 *
 * @param wallNanos from the start of the read (query issued, job submitted) to its end
 * @param startNanos when the read started, where known (else the first change's time)
 */
record ReadResult(
        long rowChanges,
        long checksum,
        long firstNanos,
        long lastNanos,
        long wallNanos,
        long startNanos) {

    /** A reader that did not run. */
    static final ReadResult NONE = new ReadResult(0, 0, 0, 0, 0, 0);

    ReadResult(long rowChanges, long checksum, long firstNanos, long lastNanos, long wallNanos) {
        this(rowChanges, checksum, firstNanos, lastNanos, wallNanos, firstNanos);
    }

    /** The same result, the read having started at {@code startNanos}. */
    ReadResult from(long startNanos) {
        return new ReadResult(rowChanges, checksum, firstNanos, lastNanos, wallNanos, startNanos);
    }

    /** From the start of the read (query issued, job submitted) to its first change. */
    long startNanosToFirst() {
        return firstNanos - startNanos;
    }

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
