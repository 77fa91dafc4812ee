package io.spannercs.flink.source.enumerator;

import org.apache.flink.annotation.Internal;

/** Where a partition is in its life, as the enumerator sees it. */
@Internal
public enum PartitionStatus {
    /** Known, waiting for a reader (or, for a legacy child, for its parents to finish). */
    UNASSIGNED,
    /** Read by a subtask. */
    ASSIGNED,
    /** Returned its last record. */
    FINISHED
}
