package io.spannercs.job;

import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricConfig;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.metrics.reporter.MetricReporter;
import org.apache.flink.metrics.reporter.MetricReporterFactory;

/**
 * A metric reporter for the demo's local Flink: it keeps the source's metrics so that the demo can
 * print progress. Sums counters and gauges of the same name over subtasks.
 */
public final class DemoMetrics implements MetricReporter {
    private static final Map<String, Metric> METRICS = new ConcurrentHashMap<>();

    // The last counts of subtasks that ended: a source subtask that reached the end timestamp
    // takes its metrics with it, and the totals must not drop while the others still run.
    private static final Map<String, Long> ENDED_COUNTS = new ConcurrentHashMap<>();

    /** Names of the metrics the demo prints. */
    static final String[] WATCHED = {
        "numRecordsIn",
        "activePartitions",
        "blockedPartitions",
        "pendingBarriers",
        "currentEmitEventTimeLag",
        "knownPartitions",
        "numSnapshotRows",
        "snapshotSplits",
        "snapshotSplitsFinished",
        "snapshotRowsPlanned"
    };

    @Override
    public void open(MetricConfig config) {}

    @Override
    public void close() {}

    @Override
    public void notifyOfAddedMetric(Metric metric, String name, MetricGroup group) {
        if (name.equals("numRecordsIn")
                && !group.getAllVariables()
                        .getOrDefault("<operator_name>", "")
                        .startsWith("Source: ")) {
            // The writer, the committer and the task count records in too: only the source's
            // count is the number of changes read.
            return;
        }
        for (String w : WATCHED) {
            if (w.equals(name)) {
                METRICS.put(group.getMetricIdentifier(name), metric);
            }
        }
    }

    @Override
    public void notifyOfRemovedMetric(Metric metric, String name, MetricGroup group) {
        String id = group.getMetricIdentifier(name);
        if (METRICS.remove(id) instanceof Counter c) {
            ENDED_COUNTS.merge(id, c.getCount(), Long::sum);
        }
    }

    /** Forgets an earlier run's counts (a demo run starts with none). */
    static void reset() {
        METRICS.clear();
        ENDED_COUNTS.clear();
    }

    /** Whether a source subtask runs: only those register a {@code numRecordsIn} kept here. */
    static boolean sourceRunning() {
        return METRICS.keySet().stream().anyMatch(k -> k.endsWith(".numRecordsIn"));
    }

    /**
     * The sum over subtasks of a counter (ended subtasks' last counts included) or numeric gauge
     * (running subtasks only); for lags, the largest.
     */
    static long value(String name) {
        long sum = 0;
        long max = 0;
        for (Map.Entry<String, Metric> e : METRICS.entrySet()) {
            if (!e.getKey().endsWith("." + name)) {
                continue;
            }
            long v = 0;
            if (e.getValue() instanceof Counter c) {
                v = c.getCount();
            } else if (e.getValue() instanceof Gauge<?> g && g.getValue() instanceof Number n) {
                v = n.longValue();
            }
            sum += v;
            max = Math.max(max, v);
        }
        for (Map.Entry<String, Long> e : ENDED_COUNTS.entrySet()) {
            if (e.getKey().endsWith("." + name)) {
                sum += e.getValue();
            }
        }
        return name.endsWith("Lag") ? max : sum;
    }

    /** Creates the reporter; named in the demo's Flink configuration. */
    public static final class Factory implements MetricReporterFactory {
        @Override
        public MetricReporter createMetricReporter(Properties properties) {
            return new DemoMetrics();
        }
    }
}
