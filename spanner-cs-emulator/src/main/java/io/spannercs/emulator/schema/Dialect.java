package io.spannercs.emulator.schema;

/**
 * The SQL dialect of a database. It decides how DDL and queries are parsed, how change streams are
 * read ({@code READ_<stream>} in GoogleSQL, {@code spanner.read_json_<stream>} and {@code
 * spanner.read_proto_bytes_<stream>} in PostgreSQL) and how {@code information_schema} names its
 * columns.
 */
public enum Dialect {
    /** GoogleSQL, Spanner's default dialect. */
    GOOGLE_STANDARD_SQL,
    /** The PostgreSQL interface: PostgreSQL DDL, {@code $1} parameters and lower-case names. */
    POSTGRESQL
}
