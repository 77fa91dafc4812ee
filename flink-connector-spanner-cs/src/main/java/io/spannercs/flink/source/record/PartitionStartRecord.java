package io.spannercs.flink.source.record;

import java.util.List;
import org.apache.flink.annotation.Internal;

/** New partitions to query from {@code timestampMicros} (MUTABLE_KEY_RANGE). */
@Internal
public record PartitionStartRecord(
        long timestampMicros, String recordSequence, List<String> partitionTokens)
        implements ChangeRecord {

    @Override
    public String identity() {
        return "S" + recordSequence;
    }
}
