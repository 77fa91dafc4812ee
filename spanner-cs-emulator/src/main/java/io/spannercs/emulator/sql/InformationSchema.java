package io.spannercs.emulator.sql;

import static io.spannercs.emulator.sql.VirtualTable.field;

import com.google.protobuf.Value;
import com.google.spanner.v1.StructType;
import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import io.spannercs.emulator.schema.ChangeStreamDef;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.schema.PgTypes;
import io.spannercs.emulator.schema.Schema;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.schema.TableDef;
import io.spannercs.emulator.schema.VersionRetention;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The {@code information_schema} views the emulator answers, built from the schema. In a PostgreSQL
 * database the column names are lower case, user objects are in schema {@code public} (GoogleSQL's
 * is the empty string), and types are spelled the PostgreSQL way.
 */
public final class InformationSchema {
    private static final Type STRING = SpannerTypes.of(TypeCode.STRING);
    private static final Type BOOL = SpannerTypes.of(TypeCode.BOOL);
    private static final Type INT64 = SpannerTypes.of(TypeCode.INT64);
    private static final Value EMPTY = SpannerTypes.str("");
    private static final String PG_SCHEMA = "public";

    private final Schema schema;
    private final boolean postgres;
    private final VersionRetention retention;

    private InformationSchema(Schema schema, VersionRetention retention) {
        this.schema = schema;
        this.postgres = schema.dialect() == Dialect.POSTGRESQL;
        this.retention = retention;
    }

    /**
     * The view, with the {@code version_retention_period} the schema's DDL set (1 hour if none).
     *
     * @throws IllegalArgumentException for a view the emulator does not have
     */
    public static VirtualTable view(Schema schema, String name) {
        return view(schema, name, schema.versionRetention().orElse(VersionRetention.DEFAULT));
    }

    /**
     * The view, with the database's current {@code version_retention_period}.
     *
     * @throws IllegalArgumentException for a view the emulator does not have
     */
    public static VirtualTable view(Schema schema, String name, VersionRetention retention) {
        InformationSchema is = new InformationSchema(schema, retention);
        VirtualTable view;
        switch (name.toLowerCase(Locale.ROOT)) {
            case "change_streams":
                view = is.changeStreams();
                break;
            case "change_stream_options":
                view = is.changeStreamOptions();
                break;
            case "change_stream_tables":
                view = is.changeStreamTables();
                break;
            case "change_stream_columns":
                view = is.changeStreamColumns();
                break;
            case "tables":
                view = is.tables();
                break;
            case "columns":
                view = is.columns();
                break;
            case "index_columns":
                view = is.indexColumns();
                break;
            case "key_column_usage":
                view = is.keyColumnUsage();
                break;
            case "table_constraints":
                view = is.tableConstraints();
                break;
            case "database_options":
                view = is.databaseOptions();
                break;
            default:
                throw new IllegalArgumentException(
                        "Table not found: information_schema."
                                + name
                                + " (not served by the emulator)");
        }
        return is.postgres ? lowerCaseColumns(view) : view;
    }

    /** PostgreSQL's information_schema names its columns in lower case. */
    private static VirtualTable lowerCaseColumns(VirtualTable view) {
        List<StructType.Field> fields = new ArrayList<>();
        for (StructType.Field f : view.columns()) {
            fields.add(f.toBuilder().setName(f.getName().toLowerCase(Locale.ROOT)).build());
        }
        return new VirtualTable(fields, view.rows());
    }

    /** The schema of user objects: {@code ''} in GoogleSQL, {@code public} in PostgreSQL. */
    private Value userSchema() {
        return postgres ? SpannerTypes.str(PG_SCHEMA) : EMPTY;
    }

    private String typeName(Type type) {
        return postgres ? PgTypes.name(type) : SpannerTypes.toSpannerTypeName(type);
    }

    private static Value bool(boolean b) {
        return Value.newBuilder().setBoolValue(b).build();
    }

    /**
     * A yes/no column: BOOL in GoogleSQL, {@code 'YES'}/{@code 'NO'} text in PostgreSQL (as
     * PostgreSQL's information_schema writes booleans; measured on Google's emulator).
     */
    private StructType.Field yesNoField(String name) {
        return field(name, postgres ? STRING : BOOL);
    }

    private Value yesNo(boolean b) {
        return postgres ? SpannerTypes.str(b ? "YES" : "NO") : bool(b);
    }

    private static List<StructType.Field> streamColumns() {
        List<StructType.Field> f = new ArrayList<>();
        f.add(field("CHANGE_STREAM_CATALOG", STRING));
        f.add(field("CHANGE_STREAM_SCHEMA", STRING));
        f.add(field("CHANGE_STREAM_NAME", STRING));
        return f;
    }

    private List<Value> streamRow(ChangeStreamDef cs) {
        List<Value> r = new ArrayList<>();
        r.add(EMPTY);
        r.add(userSchema());
        r.add(SpannerTypes.str(cs.name()));
        return r;
    }

    private VirtualTable changeStreams() {
        List<StructType.Field> cols = streamColumns();
        cols.add(yesNoField("ALL"));
        List<List<Value>> rows = new ArrayList<>();
        for (ChangeStreamDef cs : schema.changeStreams()) {
            List<Value> r = streamRow(cs);
            r.add(yesNo(cs.forAll()));
            rows.add(r);
        }
        return new VirtualTable(cols, rows);
    }

    private VirtualTable changeStreamOptions() {
        List<StructType.Field> cols = streamColumns();
        cols.add(field("OPTION_NAME", STRING));
        cols.add(field("OPTION_TYPE", STRING));
        cols.add(field("OPTION_VALUE", STRING));
        List<List<Value>> rows = new ArrayList<>();
        for (ChangeStreamDef cs : schema.changeStreams()) {
            // Spanner lists only the options set explicitly.
            for (Map.Entry<String, String> o : cs.explicitOptions().entrySet()) {
                boolean isBool = o.getKey().startsWith("exclude_");
                List<Value> r = streamRow(cs);
                r.add(SpannerTypes.str(o.getKey()));
                r.add(SpannerTypes.str(optionType(isBool)));
                r.add(SpannerTypes.str(o.getValue()));
                rows.add(r);
            }
        }
        return new VirtualTable(cols, rows);
    }

    private String optionType(boolean isBool) {
        if (postgres) {
            return isBool ? "boolean" : "character varying";
        }
        return isBool ? "BOOL" : "STRING";
    }

    private VirtualTable changeStreamTables() {
        List<StructType.Field> cols = streamColumns();
        cols.add(field("TABLE_CATALOG", STRING));
        cols.add(field("TABLE_SCHEMA", STRING));
        cols.add(field("TABLE_NAME", STRING));
        cols.add(yesNoField("ALL_COLUMNS"));
        List<List<Value>> rows = new ArrayList<>();
        for (ChangeStreamDef cs : schema.changeStreams()) {
            for (TableDef t : schema.tables()) {
                // Spanner lists only tables a FOR clause names; FOR ALL streams have no rows.
                if (cs.forAll() || !cs.watchesTable(t.name())) {
                    continue;
                }
                // ALL_COLUMNS: the FOR clause names the table without a column list. A list that
                // happens to name every non-key column is still a list (measured on Google's
                // emulator), and so is t() (key columns only).
                List<Value> r = streamRow(cs);
                r.add(EMPTY);
                r.add(userSchema());
                r.add(SpannerTypes.str(t.name()));
                r.add(yesNo(columnList(cs, t) == null));
                rows.add(r);
            }
        }
        return new VirtualTable(cols, rows);
    }

    private VirtualTable changeStreamColumns() {
        List<StructType.Field> cols = streamColumns();
        cols.add(field("TABLE_CATALOG", STRING));
        cols.add(field("TABLE_SCHEMA", STRING));
        cols.add(field("TABLE_NAME", STRING));
        cols.add(field("COLUMN_NAME", STRING));
        List<List<Value>> rows = new ArrayList<>();
        for (ChangeStreamDef cs : schema.changeStreams()) {
            for (TableDef t : schema.tables()) {
                for (ColumnDef c : t.columns()) {
                    // Only columns a FOR clause lists explicitly have rows.
                    if (c.primaryKey() || !listsColumn(cs, t, c)) {
                        continue;
                    }
                    List<Value> r = streamRow(cs);
                    r.add(EMPTY);
                    r.add(userSchema());
                    r.add(SpannerTypes.str(t.name()));
                    r.add(SpannerTypes.str(c.name()));
                    rows.add(r);
                }
            }
        }
        return new VirtualTable(cols, rows);
    }

    private static boolean listsColumn(ChangeStreamDef cs, TableDef t, ColumnDef c) {
        List<String> list = columnList(cs, t);
        return list != null && list.stream().anyMatch(n -> n.equalsIgnoreCase(c.name()));
    }

    /** The column list the FOR clause gives the table, or null when it names the whole table. */
    private static List<String> columnList(ChangeStreamDef cs, TableDef t) {
        for (Map.Entry<String, List<String>> e : cs.watchedColumns().entrySet()) {
            if (e.getKey().equalsIgnoreCase(t.name())) {
                return e.getValue();
            }
        }
        return null;
    }

    private VirtualTable tables() {
        List<StructType.Field> cols = new ArrayList<>();
        cols.add(field("TABLE_CATALOG", STRING));
        cols.add(field("TABLE_SCHEMA", STRING));
        cols.add(field("TABLE_NAME", STRING));
        cols.add(field("TABLE_TYPE", STRING));
        List<List<Value>> rows = new ArrayList<>();
        for (TableDef t : schema.tables()) {
            rows.add(
                    List.of(
                            EMPTY,
                            userSchema(),
                            SpannerTypes.str(t.name()),
                            SpannerTypes.str("BASE TABLE")));
        }
        return new VirtualTable(cols, rows);
    }

    private VirtualTable columns() {
        List<StructType.Field> cols = new ArrayList<>();
        cols.add(field("TABLE_CATALOG", STRING));
        cols.add(field("TABLE_SCHEMA", STRING));
        cols.add(field("TABLE_NAME", STRING));
        cols.add(field("COLUMN_NAME", STRING));
        cols.add(field("ORDINAL_POSITION", INT64));
        cols.add(field("IS_NULLABLE", STRING));
        if (postgres) {
            cols.add(field("DATA_TYPE", STRING));
        }
        cols.add(field("SPANNER_TYPE", STRING));
        List<List<Value>> rows = new ArrayList<>();
        for (TableDef t : schema.tables()) {
            for (ColumnDef c : t.columns()) {
                List<Value> r = new ArrayList<>();
                r.add(EMPTY);
                r.add(userSchema());
                r.add(SpannerTypes.str(t.name()));
                r.add(SpannerTypes.str(c.name()));
                r.add(SpannerTypes.str(Integer.toString(c.ordinalPosition())));
                r.add(SpannerTypes.str(c.notNull() ? "NO" : "YES"));
                if (postgres) {
                    r.add(SpannerTypes.str(PgTypes.dataType(c.type())));
                }
                r.add(SpannerTypes.str(typeName(c.type())));
                rows.add(r);
            }
        }
        return new VirtualTable(cols, rows);
    }

    /**
     * The primary keys, as index {@code PRIMARY_KEY} of type {@code PRIMARY_KEY}, one row per key
     * column with its position in the key (the emulator has no secondary indexes).
     */
    private VirtualTable indexColumns() {
        List<StructType.Field> cols = new ArrayList<>();
        cols.add(field("TABLE_CATALOG", STRING));
        cols.add(field("TABLE_SCHEMA", STRING));
        cols.add(field("TABLE_NAME", STRING));
        cols.add(field("INDEX_NAME", STRING));
        cols.add(field("INDEX_TYPE", STRING));
        cols.add(field("COLUMN_NAME", STRING));
        cols.add(field("ORDINAL_POSITION", INT64));
        cols.add(field("COLUMN_ORDERING", STRING));
        cols.add(field("IS_NULLABLE", STRING));
        cols.add(field("SPANNER_TYPE", STRING));
        List<List<Value>> rows = new ArrayList<>();
        for (TableDef t : schema.tables()) {
            int i = 1;
            for (ColumnDef c : t.keyColumns()) {
                boolean desc = t.keyDescending(i - 1);
                rows.add(
                        List.of(
                                EMPTY,
                                userSchema(),
                                SpannerTypes.str(t.name()),
                                SpannerTypes.str("PRIMARY_KEY"),
                                SpannerTypes.str("PRIMARY_KEY"),
                                SpannerTypes.str(c.name()),
                                SpannerTypes.str(Integer.toString(i++)),
                                SpannerTypes.str(desc ? "DESC" : "ASC"),
                                SpannerTypes.str(c.notNull() ? "NO" : "YES"),
                                SpannerTypes.str(typeName(c.type()))));
            }
        }
        return new VirtualTable(cols, rows);
    }

    /** Primary key columns in key order, under constraint {@code PK_<table>}. */
    private VirtualTable keyColumnUsage() {
        List<StructType.Field> cols = new ArrayList<>();
        cols.add(field("CONSTRAINT_CATALOG", STRING));
        cols.add(field("CONSTRAINT_SCHEMA", STRING));
        cols.add(field("CONSTRAINT_NAME", STRING));
        cols.add(field("TABLE_CATALOG", STRING));
        cols.add(field("TABLE_SCHEMA", STRING));
        cols.add(field("TABLE_NAME", STRING));
        cols.add(field("COLUMN_NAME", STRING));
        cols.add(field("ORDINAL_POSITION", INT64));
        cols.add(field("POSITION_IN_UNIQUE_CONSTRAINT", INT64));
        List<List<Value>> rows = new ArrayList<>();
        for (TableDef t : schema.tables()) {
            int i = 1;
            for (ColumnDef c : t.keyColumns()) {
                rows.add(
                        List.of(
                                EMPTY,
                                userSchema(),
                                SpannerTypes.str("PK_" + t.name()),
                                EMPTY,
                                userSchema(),
                                SpannerTypes.str(t.name()),
                                SpannerTypes.str(c.name()),
                                SpannerTypes.str(Integer.toString(i++)),
                                SpannerTypes.NULL));
            }
        }
        return new VirtualTable(cols, rows);
    }

    /**
     * Each table's primary key ({@code PK_<table>}, type {@code PRIMARY KEY}) and its NOT NULL
     * checks ({@code CK_IS_NOT_NULL_<table>_<column>}, type {@code CHECK}), named as Spanner names
     * them.
     */
    private VirtualTable tableConstraints() {
        List<StructType.Field> cols = new ArrayList<>();
        cols.add(field("CONSTRAINT_CATALOG", STRING));
        cols.add(field("CONSTRAINT_SCHEMA", STRING));
        cols.add(field("CONSTRAINT_NAME", STRING));
        cols.add(field("TABLE_CATALOG", STRING));
        cols.add(field("TABLE_SCHEMA", STRING));
        cols.add(field("TABLE_NAME", STRING));
        cols.add(field("CONSTRAINT_TYPE", STRING));
        cols.add(field("IS_DEFERRABLE", STRING));
        cols.add(field("INITIALLY_DEFERRED", STRING));
        cols.add(field("ENFORCED", STRING));
        List<List<Value>> rows = new ArrayList<>();
        for (TableDef t : schema.tables()) {
            rows.add(constraintRow(t, "PK_" + t.name(), "PRIMARY KEY"));
            for (ColumnDef c : t.columns()) {
                if (c.notNull()) {
                    rows.add(
                            constraintRow(
                                    t, "CK_IS_NOT_NULL_" + t.name() + "_" + c.name(), "CHECK"));
                }
            }
        }
        return new VirtualTable(cols, rows);
    }

    private List<Value> constraintRow(TableDef t, String name, String type) {
        return List.of(
                EMPTY,
                userSchema(),
                SpannerTypes.str(name),
                EMPTY,
                userSchema(),
                SpannerTypes.str(t.name()),
                SpannerTypes.str(type),
                SpannerTypes.str("NO"),
                SpannerTypes.str("NO"),
                SpannerTypes.str("YES"));
    }

    /**
     * The database's options: {@code database_dialect} (what the official client's {@code
     * DatabaseClient.getDialect()} asks for) and {@code version_retention_period} (1h unless set,
     * otherwise as written).
     */
    private VirtualTable databaseOptions() {
        List<StructType.Field> cols = new ArrayList<>();
        cols.add(field("CATALOG_NAME", STRING));
        cols.add(field("SCHEMA_NAME", STRING));
        cols.add(field("OPTION_NAME", STRING));
        cols.add(field("OPTION_TYPE", STRING));
        cols.add(field("OPTION_VALUE", STRING));
        List<List<Value>> rows = new ArrayList<>();
        rows.add(
                List.of(
                        EMPTY,
                        userSchema(),
                        SpannerTypes.str("database_dialect"),
                        SpannerTypes.str(optionType(false)),
                        SpannerTypes.str(schema.dialect().name())));
        rows.add(
                List.of(
                        EMPTY,
                        userSchema(),
                        SpannerTypes.str(VersionRetention.OPTION),
                        SpannerTypes.str(optionType(false)),
                        SpannerTypes.str(retention.text())));
        return new VirtualTable(cols, rows);
    }
}
