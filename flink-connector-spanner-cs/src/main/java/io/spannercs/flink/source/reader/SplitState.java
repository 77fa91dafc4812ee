package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.SpannerSplit;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * The mutable state of a split being read, owned by the reader's task thread: what a partition or
 * snapshot split has emitted, and its reports to the enumerator until they are acknowledged.
 */
@Internal
public abstract sealed class SplitState permits PartitionSplitState, SnapshotSplitState {
    private final List<PartitionReport> pendingReports;
    private boolean finished;
    private long lastWatermarkMillis = Long.MIN_VALUE;

    SplitState(List<PartitionReport> pendingReports, boolean finished) {
        this.pendingReports = new ArrayList<>(pendingReports);
        this.finished = finished;
    }

    public abstract String token();

    /** The greatest timestamp up to which this split has emitted every record. */
    abstract long progressMicros();

    public abstract SpannerSplit toSplit();

    void addReport(PartitionReport report) {
        pendingReports.add(report);
    }

    List<PartitionReport> pendingReports() {
        return pendingReports;
    }

    void acknowledge(Collection<String> ids) {
        pendingReports.removeIf(r -> ids.contains(r.id()));
    }

    void markFinished() {
        finished = true;
    }

    boolean finished() {
        return finished;
    }

    long lastWatermarkMillis() {
        return lastWatermarkMillis;
    }

    void setLastWatermarkMillis(long millis) {
        lastWatermarkMillis = millis;
    }
}
