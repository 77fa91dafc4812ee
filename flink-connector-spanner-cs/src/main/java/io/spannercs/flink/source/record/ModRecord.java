package io.spannercs.flink.source.record;

import com.google.protobuf.Value;
import java.util.Map;
import org.apache.flink.annotation.Internal;

/**
 * One row change: values by column name in Spanner's wire encoding ({@code google.protobuf.Value}:
 * INT64 as decimal text, BYTES as base64, NaN as the string "NaN", ...).
 */
@Internal
public record ModRecord(
        Map<String, Value> keys, Map<String, Value> newValues, Map<String, Value> oldValues) {}
