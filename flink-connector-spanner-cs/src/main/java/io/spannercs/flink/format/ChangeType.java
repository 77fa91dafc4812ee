package io.spannercs.flink.format;

import org.apache.flink.annotation.PublicEvolving;

/** What happened to a row. */
@PublicEvolving
public enum ChangeType {
    INSERT,
    UPDATE,
    DELETE
}
