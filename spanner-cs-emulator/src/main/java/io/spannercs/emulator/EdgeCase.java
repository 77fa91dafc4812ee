package io.spannercs.emulator;

import java.util.Locale;

/**
 * One behaviour that Spanner's change streams may show but an emulator need not: the switches of
 * the emulator's specification-edge mode (see {@link EdgeCases}). Each has a kebab-case name for
 * the command line ({@code --edge-cases shared-timestamps,stream-limit}).
 */
public enum EdgeCase {
    /** Several transactions commit at one commit timestamp, also in one partition. */
    SHARED_TIMESTAMPS,
    /** A heartbeat at exactly T before the first partition record of T in a partition query. */
    HEARTBEAT_BEFORE_PARTITION_RECORDS,
    /** Records of one timestamp in one partition are sent out of record_sequence order. */
    UNORDERED_WITHIN_TIMESTAMP,
    /** A churn event is reported in several partition records at one timestamp. */
    SPLIT_PARTITION_RECORDS,
    /** A query whose window holds its partition's end sometimes ends without the end record. */
    WINDOW_END_WITHOUT_END_RECORD,
    /** Data records of some transactions carry enum values the proto does not define. */
    UNKNOWN_TYPES,
    /** Legacy GoogleSQL rows hold one all-NULL struct element in their unused arrays. */
    NULL_STRUCT_ELEMENTS,
    /** At most 100 concurrent streams per gRPC connection, as Google's front ends allow. */
    STREAM_LIMIT,
    /** Partition queries fail now and then with a transient error code. */
    TRANSIENT_FAULTS,
    /** MUTABLE_KEY_RANGE queries: end_timestamp at most 30 minutes after now. */
    MUTABLE_END_LIMIT;

    /** The command-line name, e.g. {@code shared-timestamps}. */
    public String cliName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The edge case with this command-line name (case-insensitive).
     *
     * @throws IllegalArgumentException naming the valid names
     */
    public static EdgeCase fromCliName(String name) {
        String n = name.trim().toLowerCase(Locale.ROOT);
        for (EdgeCase c : values()) {
            if (c.cliName().equals(n)) {
                return c;
            }
        }
        throw new IllegalArgumentException(
                "unknown edge case '" + name.trim() + "'; valid names: " + validNames());
    }

    /** Every command-line name, separated by ", ". */
    static String validNames() {
        StringBuilder sb = new StringBuilder();
        for (EdgeCase c : values()) {
            if (sb.length() > 0) {
                sb.append(", ");
            }
            sb.append(c.cliName());
        }
        return sb.toString();
    }
}
