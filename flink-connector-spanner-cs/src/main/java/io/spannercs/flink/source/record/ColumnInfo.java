package io.spannercs.flink.source.record;

import com.google.spanner.v1.Type;
import java.io.Serializable;
import org.apache.flink.annotation.Internal;

/** Column metadata of a data change record. */
@Internal
public record ColumnInfo(String name, Type type, boolean primaryKey, long ordinalPosition)
        implements Serializable {}
