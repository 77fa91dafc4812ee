package io.spannercs.benchmarks;

import java.time.Duration;

/**
 * One reader {@link ChurnBenchmark} compares, {@code plain} or {@code source-<parallelism>}: in the
 * benchmark's JVM ({@link #inProcess}) or in a JVM of its own ({@link ChurnReaderJvm}).
 */
interface ChurnReader extends AutoCloseable {

    /**
     * What one read gave.
     *
     * @param partitions partitions read besides the root query (plain reader only, else -1)
     * @param cpuNanos CPU time of the reader's JVM during the read
     * @param cpuBreakdown that CPU by thread group, or empty unless asked for
     */
    record Outcome(ReadResult read, int partitions, long cpuNanos, String cpuBreakdown) {}

    /** Reads the whole history once. */
    Outcome read(boolean cpuBreakdown) throws Exception;

    /** A source read with the per-generation breakdown printed; not counted. */
    void traceRead() throws Exception;

    @Override
    default void close() throws Exception {}

    /** The reader in this JVM. */
    static ChurnReader inProcess(String reader, ChurnHistory h, Duration timeout) {
        return new ChurnReader() {
            @Override
            public Outcome read(boolean cpuBreakdown) throws Exception {
                return readOnce(reader, h, timeout, cpuBreakdown);
            }

            @Override
            public void traceRead() throws Exception {
                ChurnReader.traceRead(reader, h);
            }
        };
    }

    /** One read in this JVM, with its CPU. */
    static Outcome readOnce(String reader, ChurnHistory h, Duration timeout, boolean cpuBreakdown)
            throws Exception {
        long cpuBefore = ChurnReads.processCpuNanos();
        try (ThreadCpuSampler sampler = cpuBreakdown ? new ThreadCpuSampler() : null) {
            ReadResult r;
            int partitions = -1;
            if (reader.equals("plain")) {
                FollowingPlainReader.Result plain = ChurnReads.plain(h, timeout);
                partitions = plain.partitions();
                r = plain.read();
            } else {
                r = ChurnReads.source(h, parallelism(reader));
            }
            return new Outcome(
                    r,
                    partitions,
                    ChurnReads.processCpuNanos() - cpuBefore,
                    sampler == null ? "" : sampler.breakdown());
        }
    }

    /** A traced source read in this JVM, printed to standard output. */
    static void traceRead(String reader, ChurnHistory h) throws Exception {
        try (GenerationTrace trace = new GenerationTrace()) {
            ChurnReads.source(h, parallelism(reader));
            trace.print(reader + " (traced read, not counted)", h.legacy());
        }
    }

    private static int parallelism(String reader) {
        if (!reader.startsWith("source-")) {
            throw new IllegalArgumentException("not a source reader: " + reader);
        }
        return Integer.parseInt(reader.substring("source-".length()));
    }
}
