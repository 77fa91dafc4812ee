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

    /**
     * What tells this record apart from every other record of its partition at the same timestamp,
     * stable across re-reads: legacy record sequences restart in every transaction, so a data
     * record is identified by its transaction and sequence; partition records by kind and sequence
     * (mutable sequences are unique per timestamp across kinds); a heartbeat by its kind alone.
     */
    String identity();
}
