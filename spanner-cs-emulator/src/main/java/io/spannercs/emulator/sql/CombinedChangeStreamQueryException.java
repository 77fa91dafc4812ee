package io.spannercs.emulator.sql;

/** A change stream TVF combined with other SQL, which Spanner answers with UNIMPLEMENTED. */
public final class CombinedChangeStreamQueryException extends IllegalArgumentException {
    public CombinedChangeStreamQueryException(String streamName) {
        super(
                "Change stream TVF must not be combined with any other SQL statements. Change"
                        + " stream records should be read using `SELECT ChangeRecord FROM READ_"
                        + streamName
                        + "(<args>)`.");
    }
}
