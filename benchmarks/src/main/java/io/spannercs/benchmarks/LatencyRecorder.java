package io.spannercs.benchmarks;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Commit-to-emit latencies (microseconds) of the changes committed inside a measurement window.
 * Shared through a static instance because the local job's operators run in this JVM.
 */
final class LatencyRecorder {
    static final LatencyRecorder INSTANCE = new LatencyRecorder();

    private long windowStartMicros = Long.MAX_VALUE;
    private long windowEndMicros = Long.MIN_VALUE;
    private long[] latencies = new long[1 << 16];
    private int size;
    // Per partition token, when it last delivered a change: tells stalled partitions apart.
    private final Map<String, Long> lastEmitByPartition = new HashMap<>();

    /** Forgets everything, for the next measurement. */
    synchronized void reset() {
        windowStartMicros = Long.MAX_VALUE;
        windowEndMicros = Long.MIN_VALUE;
        size = 0;
        lastEmitByPartition.clear();
    }

    /** Changes committed in [start, end] are measured from now on; earlier figures are dropped. */
    synchronized void measureCommitsBetween(long startMicros, long endMicros) {
        windowStartMicros = startMicros;
        windowEndMicros = endMicros;
        size = 0;
    }

    /** Called by the probe for every change it sees. */
    synchronized void record(String partitionToken, long commitMicros, long emitMicros) {
        lastEmitByPartition.put(partitionToken, emitMicros);
        if (commitMicros < windowStartMicros || commitMicros > windowEndMicros) {
            return;
        }
        if (size == latencies.length) {
            latencies = Arrays.copyOf(latencies, size * 2);
        }
        latencies[size++] = emitMicros - commitMicros;
    }

    /** Partitions that delivered a change since {@code sinceMicros}. */
    synchronized long partitionsDeliveringSince(long sinceMicros) {
        return lastEmitByPartition.values().stream().filter(t -> t >= sinceMicros).count();
    }

    /** Partitions that delivered any change. */
    synchronized int partitionsSeen() {
        return lastEmitByPartition.size();
    }

    synchronized Summary summary() {
        long[] sorted = Arrays.copyOf(latencies, size);
        Arrays.sort(sorted);
        return new Summary(sorted);
    }

    /** Percentiles of the measured latencies. */
    record Summary(long[] sortedMicros) {
        int count() {
            return sortedMicros.length;
        }

        /** The q-quantile (0 < q <= 1) in milliseconds, nearest rank. */
        double millis(double q) {
            if (sortedMicros.length == 0) {
                return Double.NaN;
            }
            int rank = (int) Math.ceil(q * sortedMicros.length);
            return sortedMicros[Math.max(0, rank - 1)] / 1000.0;
        }

        double maxMillis() {
            return sortedMicros.length == 0
                    ? Double.NaN
                    : sortedMicros[sortedMicros.length - 1] / 1000.0;
        }

        @Override
        public String toString() {
            return String.format(
                    Locale.ROOT,
                    "p50 %.1f ms, p90 %.1f ms, p99 %.1f ms, p99.9 %.1f ms, max %.1f ms",
                    millis(0.50),
                    millis(0.90),
                    millis(0.99),
                    millis(0.999),
                    maxMillis());
        }
    }
}
