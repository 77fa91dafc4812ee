package io.spannercs.flink.source.record;

import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * Key ranges moving between live partitions at {@code timestampMicros} (MUTABLE_KEY_RANGE):
 * move-ins name the partitions they come from, move-outs where they go.
 */
@Internal
public record PartitionEventRecord(
        long timestampMicros,
        String recordSequence,
        String partitionToken,
        List<String> moveInSources,
        List<String> moveOutDestinations)
        implements ChangeRecord {

    @Override
    public String identity() {
        return "E" + recordSequence;
    }
}
