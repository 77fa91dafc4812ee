package io.spannercs.emulator.schema;

/** Which values a data change record holds (Spanner's {@code value_capture_type}). */
public enum ValueCaptureType {
    OLD_AND_NEW_VALUES,
    NEW_VALUES,
    NEW_ROW,
    NEW_ROW_AND_OLD_VALUES;

    /** Whether UPDATE and INSERT records carry every watched column, not only written ones. */
    public boolean capturesFullNewRow() {
        return this == NEW_ROW || this == NEW_ROW_AND_OLD_VALUES;
    }

    /** Whether UPDATE and DELETE records carry old values. */
    public boolean capturesOldValues() {
        return this == OLD_AND_NEW_VALUES || this == NEW_ROW_AND_OLD_VALUES;
    }
}
