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
    private volatile long lastBarrierWaitMillis;
    private volatile long longestPendingBarrierWaitMillis;
    private volatile long snapshotSplits;
    private volatile long snapshotSplitsFinished;
    private volatile long snapshotRowsPlanned;
    private volatile long snapshotRowsDone;

    EnumeratorMetrics(SplitEnumeratorMetricGroup group) {
        barrierTimeouts = group.counter("barrierTimeouts");
        group.gauge("knownPartitions", (Gauge<Long>) () -> knownPartitions);
        group.gauge("unassignedPartitions", (Gauge<Long>) () -> unassignedPartitions);
        group.gauge("pendingBarriers", (Gauge<Long>) () -> pendingBarriers);
        group.gauge("lowWatermarkMicros", (Gauge<Long>) () -> lowWatermarkMicros);
        group.gauge("lastBarrierWaitMillis", (Gauge<Long>) () -> lastBarrierWaitMillis);
        group.gauge(
                "longestPendingBarrierWaitMillis",
                (Gauge<Long>) () -> longestPendingBarrierWaitMillis);
        group.gauge("snapshotSplits", (Gauge<Long>) () -> snapshotSplits);
        group.gauge("snapshotSplitsFinished", (Gauge<Long>) () -> snapshotSplitsFinished);
        group.gauge("snapshotRowsPlanned", (Gauge<Long>) () -> snapshotRowsPlanned);
        group.gauge("snapshotRowsDone", (Gauge<Long>) () -> snapshotRowsDone);
        group.setUnassignedSplitsGauge(() -> unassignedPartitions);
    }

    Counter barrierTimeouts() {
        return barrierTimeouts;
    }

    /** How long the barrier released last had waited, from its report to its release. */
    void barrierReleased(long waitedMillis) {
        lastBarrierWaitMillis = waitedMillis;
    }

    void update(PartitionGraph graph, SnapshotPhase snapshot, long nowMillis) {
        snapshotSplits = snapshot.total();
        snapshotSplitsFinished = snapshot.finishedCount();
        snapshotRowsPlanned = snapshot.rowsPlanned();
        snapshotRowsDone = snapshot.rowsDone();
        long longest = 0;
        for (PendingBarrier b : graph.barriers()) {
            longest = Math.max(longest, nowMillis - b.sinceMillis());
        }
        longestPendingBarrierWaitMillis = longest;
        knownPartitions = graph.partitions().size();
        unassignedPartitions = graph.count(PartitionStatus.UNASSIGNED);
        pendingBarriers = graph.barriers().size();
        lowWatermarkMicros = graph.lowWatermarkMicros();
    }
}
