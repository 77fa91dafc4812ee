package io.spannercs.emulator.sql;

import static io.spannercs.emulator.sql.VirtualTable.field;

import com.google.protobuf.Value;
import com.google.spanner.v1.StructType;
import com.google.spanner.v1.Type;
import com.google.spanner.v1.TypeCode;
import io.spannercs.emulator.schema.ChangeStreamDef;
import io.spannercs.emulator.schema.ColumnDef;
import io.spannercs.emulator.schema.Schema;
import io.spannercs.emulator.schema.SpannerTypes;
import io.spannercs.emulator.schema.TableDef;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The {@code information_schema} views the emulator answers, built from the schema. */
public final class InformationSchema {
    private static final Type STRING = SpannerTypes.of(TypeCode.STRING);
    private static final Type BOOL = SpannerTypes.of(TypeCode.BOOL);
    private static final Type INT64 = SpannerTypes.of(TypeCode.INT64);
    private static final Value EMPTY = SpannerTypes.str("");

    private InformationSchema() {}

    /**
     * @throws IllegalArgumentException for a view the emulator does not have
     */
    public static VirtualTable view(Schema schema, String name) {
        switch (name.toLowerCase(Locale.ROOT)) {
            case "change_streams":
                return changeStreams(schema);
            case "change_stream_options":
                return changeStreamOptions(schema);
            case "change_stream_tables":
                return changeStreamTables(schema);
            case "change_stream_columns":
                return changeStreamColumns(schema);
            case "tables":
                return tables(schema);
            case "columns":
                return columns(schema);
            case "index_columns":
                return indexColumns(schema);
            default:
                throw new IllegalArgumentException(
                        "Table not found: information_schema."
                                + name
                                + " (not served by the emulator)");
        }
    }

    private static List<StructType.Field> streamColumns(String... more) {
        List<StructType.Field> f = new ArrayList<>();
        f.add(field("CHANGE_STREAM_CATALOG", STRING));
        f.add(field("CHANGE_STREAM_SCHEMA", STRING));
        f.add(field("CHANGE_STREAM_NAME", STRING));
        return f;
    }

    private static List<Value> streamRow(ChangeStreamDef cs) {
        List<Value> r = new ArrayList<>();
        r.add(EMPTY);
        r.add(EMPTY);
        r.add(SpannerTypes.str(cs.name()));
        return r;
    }

    private static VirtualTable changeStreams(Schema schema) {
        List<StructType.Field> cols = streamColumns();
        cols.add(field("ALL", BOOL));
        List<List<Value>> rows = new ArrayList<>();
        for (ChangeStreamDef cs : schema.changeStreams()) {
            List<Value> r = streamRow(cs);
            r.add(Value.newBuilder().setBoolValue(cs.forAll()).build());
            rows.add(r);
        }
        return new VirtualTable(cols, rows);
    }

    private static VirtualTable changeStreamOptions(Schema schema) {
        List<StructType.Field> cols = streamColumns();
        cols.add(field("OPTION_NAME", STRING));
        cols.add(field("OPTION_TYPE", STRING));
        cols.add(field("OPTION_VALUE", STRING));
        List<List<Value>> rows = new ArrayList<>();
        for (ChangeStreamDef cs : schema.changeStreams()) {
            // Spanner lists only the options set explicitly.
            for (Map.Entry<String, String> o : cs.explicitOptions().entrySet()) {
                List<Value> r = streamRow(cs);
                r.add(SpannerTypes.str(o.getKey()));
                r.add(
                        SpannerTypes.str(
                                o.getKey().equals("exclude_ttl_deletes")
                                                || o.getKey().startsWith("exclude_")
                                        ? "BOOL"
                                        : "STRING"));
                r.add(SpannerTypes.str(o.getValue()));
                rows.add(r);
            }
        }
        return new VirtualTable(cols, rows);
    }

    private static VirtualTable changeStreamTables(Schema schema) {
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
                boolean all =
                        cs.forAll()
                                || t.columns().stream()
                                        .allMatch(c -> cs.watchesColumn(t.name(), c));
                List<Value> r = streamRow(cs);
                r.add(EMPTY);
                r.add(EMPTY);
                r.add(SpannerTypes.str(t.name()));
                r.add(Value.newBuilder().setBoolValue(all).build());
                rows.add(r);
            }
        }
        return new VirtualTable(cols, rows);
    }

    private static VirtualTable changeStreamColumns(Schema schema) {
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
                    r.add(EMPTY);
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

    private static VirtualTable tables(Schema schema) {
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
                            EMPTY,
                            SpannerTypes.str(t.name()),
                            SpannerTypes.str("BASE TABLE")));
        }
        return new VirtualTable(cols, rows);
    }

    private static VirtualTable columns(Schema schema) {
        List<StructType.Field> cols = new ArrayList<>();
        cols.add(field("TABLE_CATALOG", STRING));
        cols.add(field("TABLE_SCHEMA", STRING));
        cols.add(field("TABLE_NAME", STRING));
        cols.add(field("COLUMN_NAME", STRING));
        cols.add(field("ORDINAL_POSITION", INT64));
        cols.add(field("IS_NULLABLE", STRING));
        cols.add(field("SPANNER_TYPE", STRING));
        List<List<Value>> rows = new ArrayList<>();
        for (TableDef t : schema.tables()) {
            for (ColumnDef c : t.columns()) {
                rows.add(
                        List.of(
                                EMPTY,
                                EMPTY,
                                SpannerTypes.str(t.name()),
                                SpannerTypes.str(c.name()),
                                SpannerTypes.str(Integer.toString(c.ordinalPosition())),
                                SpannerTypes.str(c.notNull() ? "NO" : "YES"),
                                SpannerTypes.str(SpannerTypes.toSpannerTypeName(c.type()))));
            }
        }
        return new VirtualTable(cols, rows);
    }

    private static VirtualTable indexColumns(Schema schema) {
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
                                EMPTY,
                                SpannerTypes.str(t.name()),
                                SpannerTypes.str("PRIMARY_KEY"),
                                SpannerTypes.str(c.name()),
                                SpannerTypes.str(Integer.toString(i++))));
            }
        }
        return new VirtualTable(cols, rows);
    }
}
