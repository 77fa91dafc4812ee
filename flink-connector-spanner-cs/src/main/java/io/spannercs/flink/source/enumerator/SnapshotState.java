package io.spannercs.flink.source.enumerator;

import io.spannercs.flink.source.split.SnapshotSplit;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * The snapshot part of the enumerator's checkpoint (see {@link SnapshotPhase}).
 *
 * @param unassigned splits waiting for a reader, with their positions
 * @param assigned split ids by the subtask reading them
 * @param unfinished ids of the splits that have not finished
 */
@Internal
public record SnapshotState(
        SnapshotPhase.Status status,
        long snapshotMicros,
        List<SnapshotSplit> unassigned,
        Map<String, Integer> assigned,
        List<String> unfinished,
        int total,
        long rowsPlanned,
        long rowsDone) {

    public SnapshotState {
        unassigned = List.copyOf(unassigned);
        assigned = Collections.unmodifiableMap(new LinkedHashMap<>(assigned));
        unfinished = List.copyOf(unfinished);
    }

    /** The state of a source without a snapshot. */
    public static SnapshotState none() {
        return new SnapshotState(
                SnapshotPhase.Status.NONE, Long.MIN_VALUE, List.of(), Map.of(), List.of(), 0, 0, 0);
    }
}
