package io.spannercs.flink.source.record;

import java.io.Serializable;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * Partitions that continue from {@code timestampMicros} (IMMUTABLE_KEY_RANGE). From a partition
 * query it also means that partition ends at that timestamp (a split may list its children in
 * several such records, so the partition is read until its query ends); from the root query it
 * lists the first ones.
 */
@Internal
public record ChildPartitionsRecord(
        long timestampMicros, String recordSequence, List<ChildPartition> children)
        implements ChangeRecord {

    /**
     * Sequence and children: a split may list its children in several records at one timestamp,
     * whose sequences are not known to differ in every implementation.
     */
    @Override
    public String identity() {
        List<String> tokens = new java.util.ArrayList<>(children.size());
        children.forEach(c -> tokens.add(c.token()));
        return "C" + recordSequence + "/" + Integer.toHexString(tokens.hashCode());
    }

    /** A child partition with all of its parents (several after a merge). */
    public record ChildPartition(String token, List<String> parentTokens) implements Serializable {}
}
