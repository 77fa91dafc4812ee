package io.spannercs.flink.format;

import org.apache.flink.annotation.PublicEvolving;

/** What happened to a row. */
@PublicEvolving
public enum ChangeType {
    INSERT,
    UPDATE,
    DELETE,
    /**
     * A mod type this connector does not know (Spanner adds values over time). Only delivered when
     * the source passes unknown values through ({@code UnknownValueHandling.RAW}); {@link
     * ChangeEvent#getRawChangeType()} holds what Spanner sent.
     */
    UNKNOWN
}
