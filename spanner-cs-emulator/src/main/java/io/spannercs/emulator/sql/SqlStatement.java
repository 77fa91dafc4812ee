package io.spannercs.emulator.sql;

import java.util.List;
import java.util.Map;

/** A parsed statement of the subset the emulator answers. */
public sealed interface SqlStatement {

    /**
     * {@code SELECT ChangeRecord FROM READ_<stream>(...)}. Argument values are expressions not yet
     * bound to parameters; names are the TVF's parameter names.
     */
    record ChangeStreamRead(String streamName, Map<String, SqlExpr> arguments)
            implements SqlStatement {}

    /** {@code SELECT cols FROM table [WHERE col = value [AND ...]]}; {@code *} selects all. */
    record Select(
            String schemaName, String table, List<String> columns, Map<String, SqlExpr> equalities)
            implements SqlStatement {}

    /** {@code SELECT <literal>}, used by clients to check connectivity. */
    record SelectLiteral(SqlExpr value) implements SqlStatement {}
}
