package io.spannercs.emulator.sql;

/** A change stream TVF combined with other SQL, which Spanner answers with UNIMPLEMENTED. */
public final class CombinedChangeStreamQueryException extends IllegalArgumentException {
    /**
     * @param readSyntax how the stream should be read, e.g. {@code SELECT ChangeRecord FROM
     *     READ_s(<args>)}
     */
    public CombinedChangeStreamQueryException(String readSyntax) {
        super(
                "Change stream TVF must not be combined with any other SQL statements. Change"
                        + " stream records should be read using `"
                        + readSyntax
                        + "`.");
    }
}
