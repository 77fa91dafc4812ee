package io.spannercs.flink.source.enumerator;

import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.Gauge;
import org.apache.flink.metrics.groups.SplitEnumeratorMetricGroup;

/**
 * The enumerator's metrics. Gauges read values copied after each change, because metric reporters
 * run on their own threads while the graph is changed on the coordinator thread.
 */
final class EnumeratorMetrics {
    private final Counter barrierTimeouts;
    private volatile long knownPartitions;
    private volatile long unassignedPartitions;
    private volatile long pendingBarriers;
    private volatile long lowWatermarkMicros = Long.MIN_VALUE;

    EnumeratorMetrics(SplitEnumeratorMetricGroup group) {
        barrierTimeouts = group.counter("barrierTimeouts");
        group.gauge("knownPartitions", (Gauge<Long>) () -> knownPartitions);
        group.gauge("unassignedPartitions", (Gauge<Long>) () -> unassignedPartitions);
        group.gauge("pendingBarriers", (Gauge<Long>) () -> pendingBarriers);
        group.gauge("lowWatermarkMicros", (Gauge<Long>) () -> lowWatermarkMicros);
        group.setUnassignedSplitsGauge(() -> unassignedPartitions);
    }

    Counter barrierTimeouts() {
        return barrierTimeouts;
    }

    void update(PartitionGraph graph) {
        knownPartitions = graph.partitions().size();
        unassignedPartitions = graph.count(PartitionStatus.UNASSIGNED);
        pendingBarriers = graph.barriers().size();
        lowWatermarkMicros = graph.lowWatermarkMicros();
    }
}
