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
}
