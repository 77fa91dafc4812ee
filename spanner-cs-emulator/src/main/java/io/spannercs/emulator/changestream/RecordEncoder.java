package io.spannercs.emulator.changestream;

import com.google.protobuf.Value;
import com.google.spanner.v1.StructType;

/** Turns log entries into rows of the query's single {@code ChangeRecord} column. */
public interface RecordEncoder {
    /** The row type of the query result. */
    StructType rowType();

    /** The {@code ChangeRecord} value for a log entry. */
    Value encode(LogEntry entry);

    /** The {@code ChangeRecord} value for a heartbeat at the timestamp. */
    Value heartbeat(long micros);

    /**
     * Whether the rows can carry all-NULL struct elements in their unused arrays (edge case
     * null-struct-elements): only the GoogleSQL legacy rows can.
     */
    default boolean supportsNullStructElements() {
        return false;
    }

    /**
     * The value for a log entry; with {@code nullElements}, the unused arrays hold one element
     * whose fields are all NULL (where {@link #supportsNullStructElements()}).
     */
    default Value encode(LogEntry entry, boolean nullElements) {
        return encode(entry);
    }

    /**
     * The value for a heartbeat; {@code nullElements} as for {@link #encode(LogEntry, boolean)}.
     */
    default Value heartbeat(long micros, boolean nullElements) {
        return heartbeat(micros);
    }
}
