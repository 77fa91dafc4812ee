package io.spannercs.flink.table;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.table.SpannerCdcOptions.ChangelogModeOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * Turns the changes of one Spanner table into changelog rows: the declared physical columns, then
 * the requested metadata columns. INSERT gives an INSERT row; UPDATE an UPDATE_BEFORE (mode {@code
 * all} only) and an UPDATE_AFTER; DELETE a DELETE row with the values before (only the key where
 * the capture type records no old values, which upsert mode allows).
 */
@Internal
public final class RowDataChangeEventDeserializer implements ChangeEventDeserializer<RowData> {
    private static final long serialVersionUID = 1L;

    private final String table;
    private final String[] columns;
    private final SpannerValueConverters.Converter[] converters;
    private final SpannerCdcMetadata[] metadata;
    private final ChangelogModeOption mode;
    private final TypeInformation<RowData> producedType;

    /**
     * @param columns Spanner names of the produced physical columns
     * @param types their declared types, checked by {@link SpannerTypeMapping}
     */
    public RowDataChangeEventDeserializer(
            String table,
            List<String> columns,
            List<LogicalType> types,
            List<SpannerCdcMetadata> metadata,
            ChangelogModeOption mode,
            TypeInformation<RowData> producedType) {
        this.table = table;
        this.columns = columns.toArray(new String[0]);
        this.converters = new SpannerValueConverters.Converter[columns.size()];
        for (int i = 0; i < this.columns.length; i++) {
            converters[i] = SpannerValueConverters.create(columns.get(i), types.get(i));
        }
        this.metadata = metadata.toArray(new SpannerCdcMetadata[0]);
        this.mode = mode;
        this.producedType = producedType;
    }

    @Override
    public void deserialize(ChangeEvent event, Collector<RowData> out) {
        if (!table.equals(event.getTable())) {
            return; // the source's filter keeps other tables out; this guards hand-built sources
        }
        switch (event.getChangeType()) {
            case INSERT:
                out.collect(row(RowKind.INSERT, newRow(event), true, event));
                break;
            case UPDATE:
                if (mode == ChangelogModeOption.ALL) {
                    out.collect(row(RowKind.UPDATE_BEFORE, oldRow(event), true, event));
                }
                out.collect(row(RowKind.UPDATE_AFTER, newRow(event), true, event));
                break;
            case DELETE:
                out.collect(
                        row(RowKind.DELETE, oldRow(event), mode == ChangelogModeOption.ALL, event));
                break;
            default:
                throw new IllegalStateException("Unknown change type " + event.getChangeType());
        }
    }

    private static Map<String, Object> newRow(ChangeEvent e) {
        Map<String, Object> row = new HashMap<>(e.getKeys());
        row.putAll(e.getNewValues());
        return row;
    }

    /** The row before: the new row with the written columns' old values (all of them on DELETE). */
    private static Map<String, Object> oldRow(ChangeEvent e) {
        Map<String, Object> row = newRow(e);
        row.putAll(e.getOldValues());
        return row;
    }

    private RowData row(RowKind kind, Map<String, Object> values, boolean full, ChangeEvent e) {
        GenericRowData row = new GenericRowData(kind, columns.length + metadata.length);
        for (int i = 0; i < columns.length; i++) {
            Object v = values.get(columns[i]);
            if (v == null && full && !values.containsKey(columns[i])) {
                // Planning checked the capture type; this catches streams altered since, and
                // columns the stream does not watch (FOR Orders(Customer)).
                throw new IllegalStateException(
                        "Change stream record of table "
                                + table
                                + " ("
                                + e.getChangeType()
                                + " with value_capture_type "
                                + e.getValueCaptureType()
                                + ") has no value for column '"
                                + columns[i]
                                + "', which a "
                                + kind
                                + " row needs: the stream must watch every declared column"
                                + " and record full rows (see docs/sql.md, changelog semantics)");
            }
            row.setField(i, converters[i].convert(v));
        }
        for (int i = 0; i < metadata.length; i++) {
            row.setField(columns.length + i, metadata[i].read(e));
        }
        return row;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
