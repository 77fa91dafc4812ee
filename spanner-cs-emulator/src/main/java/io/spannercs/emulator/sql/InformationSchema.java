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

    private InformationSchema(Schema schema) {
        this.schema = schema;
        this.postgres = schema.dialect() == Dialect.POSTGRESQL;
    }

    /**
     * @throws IllegalArgumentException for a view the emulator does not have
     */
    public static VirtualTable view(Schema schema, String name) {
        InformationSchema is = new InformationSchema(schema);
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
        cols.add(field("ALL", BOOL));
        List<List<Value>> rows = new ArrayList<>();
        for (ChangeStreamDef cs : schema.changeStreams()) {
            List<Value> r = streamRow(cs);
            r.add(bool(cs.forAll()));
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
        cols.add(field("ALL_COLUMNS", BOOL));
        List<List<Value>> rows = new ArrayList<>();
        for (ChangeStreamDef cs : schema.changeStreams()) {
            for (TableDef t : schema.tables()) {
                // Spanner lists only tables a FOR clause names; FOR ALL streams have no rows.
                if (cs.forAll() || !cs.watchesTable(t.name())) {
                    continue;
                }
                boolean all = t.columns().stream().allMatch(c -> cs.watchesColumn(t.name(), c));
                List<Value> r = streamRow(cs);
                r.add(EMPTY);
                r.add(userSchema());
                r.add(SpannerTypes.str(t.name()));
                r.add(bool(all));
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
        for (Map.Entry<String, List<String>> e : cs.watchedColumns().entrySet()) {
            if (e.getKey().equalsIgnoreCase(t.name()) && e.getValue() != null) {
                return e.getValue().stream().anyMatch(n -> n.equalsIgnoreCase(c.name()));
            }
        }
        return false;
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

    private VirtualTable indexColumns() {
        List<StructType.Field> cols = new ArrayList<>();
        cols.add(field("TABLE_CATALOG", STRING));
        cols.add(field("TABLE_SCHEMA", STRING));
        cols.add(field("TABLE_NAME", STRING));
        cols.add(field("INDEX_NAME", STRING));
        cols.add(field("COLUMN_NAME", STRING));
        cols.add(field("ORDINAL_POSITION", INT64));
        List<List<Value>> rows = new ArrayList<>();
        for (TableDef t : schema.tables()) {
            int i = 1;
            for (ColumnDef c : t.keyColumns()) {
                rows.add(
                        List.of(
                                EMPTY,
                                userSchema(),
                                SpannerTypes.str(t.name()),
                                SpannerTypes.str("PRIMARY_KEY"),
                                SpannerTypes.str(c.name()),
                                SpannerTypes.str(Integer.toString(i++))));
            }
        }
        return new VirtualTable(cols, rows);
    }

    /**
     * The database's options. Only {@code database_dialect} is listed: it is what the official
     * client's {@code DatabaseClient.getDialect()} asks for.
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
        return new VirtualTable(cols, rows);
    }
}
