package io.spannercs.emulator.sql;

import java.util.List;
import java.util.Map;

/** A parsed statement of the subset the emulator answers. */
public sealed interface SqlStatement {

    /** The table-valued functions that read a change stream. */
    enum ReadFunction {
        /** GoogleSQL {@code READ_<stream>}, for both partition modes. */
        READ,
        /** PostgreSQL {@code spanner.read_json_<stream>}: JSONB records, legacy partition mode. */
        READ_JSON,
        /**
         * PostgreSQL {@code spanner.read_proto_bytes_<stream>}: serialized {@code
         * ChangeStreamRecord}s, {@code MUTABLE_KEY_RANGE} mode.
         */
        READ_PROTO_BYTES
    }

    /**
     * A change stream read: {@code SELECT ChangeRecord FROM READ_<stream>(...)} in GoogleSQL,
     * {@code SELECT * FROM spanner.read_json_<stream>(...)} or {@code
     * spanner.read_proto_bytes_<stream>(...)} in PostgreSQL. Argument values are expressions not
     * yet bound to parameters; names are the TVF's parameter names.
     *
     * @param functionName the function as named in the query, without schema (PostgreSQL names the
     *     result column after it)
     */
    record ChangeStreamRead(
            String streamName,
            Map<String, SqlExpr> arguments,
            ReadFunction function,
            String functionName)
            implements SqlStatement {

        /** A GoogleSQL {@code READ_<stream>} read. */
        public ChangeStreamRead(String streamName, Map<String, SqlExpr> arguments) {
            this(streamName, arguments, ReadFunction.READ, "READ_" + streamName);
        }
    }

    /**
     * {@code SELECT cols FROM table [WHERE col = value [AND col IN (values)] ...]}; {@code *}
     * selects all.
     *
     * @param memberships column (lower case) to the values of an {@code IN} list
     */
    record Select(
            String schemaName,
            String table,
            List<String> columns,
            Map<String, SqlExpr> equalities,
            Map<String, List<SqlExpr>> memberships)
            implements SqlStatement {

        /** A select with equality filters only. */
        public Select(
                String schemaName,
                String table,
                List<String> columns,
                Map<String, SqlExpr> equalities) {
            this(schemaName, table, columns, equalities, Map.of());
        }
    }

    /** {@code SELECT <literal>}, used by clients to check connectivity. */
    record SelectLiteral(SqlExpr value) implements SqlStatement {}
}
