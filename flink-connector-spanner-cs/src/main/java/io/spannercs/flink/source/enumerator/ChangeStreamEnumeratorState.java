package io.spannercs.flink.source.enumerator;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * The enumerator's checkpoint: the partition graph. Report acknowledgements are deliberately not
 * part of it; readers re-send unacknowledged reports after a restore.
 *
 * @param rootQueryDone whether the initial partitions were read (a fresh job has not)
 * @param lowWatermarkMicros the low watermark broadcast to readers; {@code Long.MIN_VALUE} before
 *     the first one
 * @param partitions every known partition that is not pruned
 * @param barriers barriers not released yet
 * @param prunedEndMicros recently pruned partitions and their end timestamps
 * @param snapshot the snapshot the source starts with, if any
 */
@Internal
public record ChangeStreamEnumeratorState(
        boolean rootQueryDone,
        long lowWatermarkMicros,
        List<PartitionEntry> partitions,
        List<BarrierEntry> barriers,
        Map<String, Long> prunedEndMicros,
        SnapshotState snapshot) {

    public ChangeStreamEnumeratorState {
        partitions = List.copyOf(partitions);
        barriers = List.copyOf(barriers);
        prunedEndMicros = Collections.unmodifiableMap(new LinkedHashMap<>(prunedEndMicros));
        java.util.Objects.requireNonNull(snapshot);
    }

    /** The state of a source without a snapshot. */
    public ChangeStreamEnumeratorState(
            boolean rootQueryDone,
            long lowWatermarkMicros,
            List<PartitionEntry> partitions,
            List<BarrierEntry> barriers,
            Map<String, Long> prunedEndMicros) {
        this(
                rootQueryDone,
                lowWatermarkMicros,
                partitions,
                barriers,
                prunedEndMicros,
                SnapshotState.none());
    }

    /** The state of a source that has not read anything yet. */
    public static ChangeStreamEnumeratorState initial() {
        return new ChangeStreamEnumeratorState(
                false, Long.MIN_VALUE, List.of(), List.of(), Map.of());
    }

    /** This state with the snapshot's. */
    public ChangeStreamEnumeratorState withSnapshot(SnapshotState snapshot) {
        return new ChangeStreamEnumeratorState(
                rootQueryDone, lowWatermarkMicros, partitions, barriers, prunedEndMicros, snapshot);
    }
}
