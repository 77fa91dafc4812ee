package io.spannercs.flink.source;

import org.apache.flink.annotation.PublicEvolving;

/**
 * What the source does with values this connector does not know: a column type newer than it (its
 * type code is neither one of Spanner's types it maps nor an array of them) or a mod type it does
 * not know. Spanner adds both over time. Value capture types are passed through as text whatever
 * their value.
 */
@PublicEvolving
public enum UnknownValueHandling {
    /**
     * The job fails with a message naming the table, column (or mod type), partition and commit
     * timestamp, and this option. The default: nothing reaches a sink in a form it cannot expect.
     */
    FAIL,
    /**
     * Values of unknown column types are passed as their raw text (Spanner's wire value: the string
     * itself, or the JSON text of a number, list or struct) under the type name Spanner reported
     * ({@code TYPE_CODE_<n>} for a code newer than the client); an unknown mod type becomes {@link
     * io.spannercs.flink.format.ChangeType#UNKNOWN} with the raw name in {@link
     * io.spannercs.flink.format.ChangeEvent#getRawChangeType()}.
     */
    RAW
}
