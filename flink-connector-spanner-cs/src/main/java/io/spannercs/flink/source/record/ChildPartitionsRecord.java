package io.spannercs.flink.source.record;

import java.io.Serializable;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * Partitions that continue from {@code timestampMicros} (IMMUTABLE_KEY_RANGE). From a partition
 * query it also means that partition has ended; from the root query it lists the first ones.
 */
@Internal
public record ChildPartitionsRecord(
        long timestampMicros, String recordSequence, List<ChildPartition> children)
        implements ChangeRecord {

    /** A child partition with all of its parents (several after a merge). */
    public record ChildPartition(String token, List<String> parentTokens) implements Serializable {}
}
