package io.spannercs.flink.source.spanner;

import io.spannercs.flink.source.split.SnapshotKey;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * One row of a snapshot split, converted on the query thread.
 *
 * @param key the row's primary key, the split's position once emitted
 * @param keys the key columns' values
 * @param values the other columns' values, in table order
 * @param columnTypes type names of the columns read, in table order (shared by a query's rows)
 */
@Internal
public record SnapshotRow(
        SnapshotKey key,
        Map<String, Object> keys,
        Map<String, Object> values,
        Map<String, String> columnTypes) {}
