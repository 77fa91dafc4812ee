package io.spannercs.flink.table;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.table.SpannerCdcOptions.ChangelogModeOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.table.data.GenericRowData;
import org.apache.flink.table.data.RowData;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.RowType;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * Turns the changes of one Spanner table into changelog rows: the declared physical columns, then
 * the requested metadata columns. INSERT gives an INSERT row; UPDATE an UPDATE_BEFORE (mode {@code
 * all} only) and an UPDATE_AFTER; DELETE a DELETE row with the values before (only the key where
 * the capture type records no old values, which upsert mode allows).
 *
 * <p>On its own this is right for mode {@code upsert}, where an INSERT of a key that holds a row
 * (Spanner's record of a REPLACE) is an upsert. Mode {@code all} must retract the row first, which
 * takes the key's last row: {@link AllChangelog} keeps it and uses the pieces here.
 */
@Internal
public final class RowDataChangeEventDeserializer implements ChangeEventDeserializer<RowData> {
    private static final long serialVersionUID = 1L;

    private final String table;
    private final String[] columns;
    private final SpannerValueConverters.Converter[] converters;
    private final RowData.FieldGetter[] getters;
    private final RowType physicalType;
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
        this.getters = new RowData.FieldGetter[columns.size()];
        for (int i = 0; i < this.columns.length; i++) {
            converters[i] = SpannerValueConverters.create(columns.get(i), types.get(i));
            getters[i] = RowData.createFieldGetter(types.get(i), i);
        }
        this.physicalType = RowType.of(types.toArray(new LogicalType[0]));
        this.metadata = metadata.toArray(new SpannerCdcMetadata[0]);
        this.mode = mode;
        this.producedType = producedType;
    }

    @Override
    public void deserialize(ChangeEvent event, Collector<RowData> out) {
        if (!accepts(event)) {
            return; // the source's filter keeps other tables out; this guards hand-built sources
        }
        switch (event.getChangeType()) {
            case INSERT:
                out.collect(withMetadata(RowKind.INSERT, after(event), event));
                break;
            case UPDATE:
                if (mode == ChangelogModeOption.ALL) {
                    out.collect(withMetadata(RowKind.UPDATE_BEFORE, before(event), event));
                }
                out.collect(withMetadata(RowKind.UPDATE_AFTER, after(event), event));
                break;
            case DELETE:
                out.collect(withMetadata(RowKind.DELETE, before(event), event));
                break;
            default:
                // Read again after a restart: the job fails once.
                throw new NonRecoverableSourceException(
                        "Change of table "
                                + event.getTable()
                                + " committed at "
                                + event.getCommitTimestamp()
                                + " (transaction "
                                + event.getServerTransactionId()
                                + ") has mod type '"
                                + event.getRawChangeType()
                                + "', which this connector does not know and a SQL changelog"
                                + " cannot represent: upgrade the connector.");
        }
    }

    /** Whether the change is of this table's Spanner table. */
    boolean accepts(ChangeEvent event) {
        return table.equals(event.getTable());
    }

    /** The produced physical columns of the row after an INSERT or UPDATE. */
    GenericRowData after(ChangeEvent event) {
        RowKind kind =
                event.getChangeType() == ChangeType.INSERT ? RowKind.INSERT : RowKind.UPDATE_AFTER;
        return physical(newRow(event), true, kind, event);
    }

    /**
     * The produced physical columns of the row before an UPDATE or DELETE: the new row with the
     * written columns' old values. Only the key where a DELETE records no old values (NEW_ROW,
     * which upsert mode allows).
     */
    GenericRowData before(ChangeEvent event) {
        RowKind kind =
                event.getChangeType() == ChangeType.DELETE ? RowKind.DELETE : RowKind.UPDATE_BEFORE;
        return physical(oldRow(event), mode == ChangelogModeOption.ALL, kind, event);
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

    private GenericRowData physical(
            Map<String, Object> values, boolean full, RowKind kind, ChangeEvent e) {
        GenericRowData row = new GenericRowData(columns.length);
        for (int i = 0; i < columns.length; i++) {
            Object v = values.get(columns[i]);
            if (v == null && full && !values.containsKey(columns[i])) {
                // Planning checked the capture type; this catches streams altered since, and
                // columns the stream does not watch (FOR Orders(Customer)). A restart reads the
                // same record: the job fails once.
                throw new NonRecoverableSourceException(
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
        return row;
    }

    /** A produced row: the physical columns, then the requested metadata of the change. */
    RowData withMetadata(RowKind kind, RowData physical, ChangeEvent e) {
        GenericRowData row = new GenericRowData(kind, columns.length + metadata.length);
        for (int i = 0; i < columns.length; i++) {
            row.setField(i, getters[i].getFieldOrNull(physical));
        }
        for (int i = 0; i < metadata.length; i++) {
            row.setField(columns.length + i, metadata[i].read(e));
        }
        return row;
    }

    /** The type of the produced physical columns alone (what {@link #after} gives). */
    RowType physicalType() {
        return physicalType;
    }

    @Override
    public TypeInformation<RowData> getProducedType() {
        return producedType;
    }
}
