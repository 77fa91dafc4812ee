package io.spannercs.flink.source.record;

import org.apache.flink.annotation.Internal;

/** The last record of a partition (MUTABLE_KEY_RANGE). */
@Internal
public record PartitionEndRecord(long timestampMicros, String recordSequence, String partitionToken)
        implements ChangeRecord {

    @Override
    public String identity() {
        return "X" + recordSequence;
    }
}
