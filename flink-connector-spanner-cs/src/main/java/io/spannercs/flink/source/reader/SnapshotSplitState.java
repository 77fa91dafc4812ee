package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.split.SnapshotKey;
import io.spannercs.flink.source.split.SnapshotSplit;
import org.apache.flink.annotation.Internal;

/** A snapshot split being read: the key of the last row emitted and how many were. */
@Internal
public final class SnapshotSplitState extends SplitState {
    private final SnapshotSplit initial;
    private SnapshotKey lastEmitted;
    private long rowsEmitted;

    public SnapshotSplitState(SnapshotSplit split) {
        super(split.pendingReports(), split.finished());
        this.initial = split;
        this.lastEmitted = split.lastEmitted();
        this.rowsEmitted = split.rowsEmitted();
    }

    @Override
    public String token() {
        return initial.splitId();
    }

    SnapshotSplit split() {
        return initial;
    }

    void emitted(SnapshotKey key) {
        lastEmitted = key;
        rowsEmitted++;
    }

    long rowsEmitted() {
        return rowsEmitted;
    }

    /** Every snapshot row carries the snapshot timestamp: nothing before it is pending. */
    @Override
    long progressMicros() {
        return initial.snapshotMicros() - 1;
    }

    @Override
    public SnapshotSplit toSplit() {
        return new SnapshotSplit(
                initial.splitId(),
                initial.table(),
                initial.columns(),
                initial.keyColumns(),
                initial.snapshotMicros(),
                initial.lowerInclusive(),
                initial.upperExclusive(),
                lastEmitted,
                rowsEmitted,
                pendingReports(),
                finished());
    }
}
