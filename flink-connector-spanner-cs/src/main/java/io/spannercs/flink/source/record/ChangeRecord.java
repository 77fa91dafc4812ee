package io.spannercs.flink.source.record;

import org.apache.flink.annotation.Internal;

/**
 * A change stream record of either partition mode, decoded into one model. Records of a partition
 * are ordered by {@link #timestampMicros()} and, within one timestamp, by {@link
 * #recordSequence()}.
 */
@Internal
public sealed interface ChangeRecord
        permits DataChangeRecord,
                HeartbeatRecord,
                PartitionStartRecord,
                PartitionEndRecord,
                PartitionEventRecord,
                ChildPartitionsRecord {

    /** Commit, heartbeat or partition timestamp, in microseconds since the epoch. */
    long timestampMicros();

    /** Order within one timestamp; empty for heartbeats. */
    String recordSequence();
}
