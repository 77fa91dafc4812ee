package io.spannercs.flink.table;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.source.NonRecoverableSourceException;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.functions.OpenContext;
import org.apache.flink.api.common.state.ValueState;
import org.apache.flink.api.common.state.ValueStateDescriptor;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.streaming.api.functions.KeyedProcessFunction;
import org.apache.flink.table.data.RowData;
import org.apache.flink.types.RowKind;
import org.apache.flink.util.Collector;

/**
 * The changelog of {@code 'changelog-mode' = 'all'}, per row (keyed by table and primary key, in
 * commit order).
 *
 * <p>Spanner records the change it applied, so a REPLACE of an existing row, or a DELETE and an
 * INSERT of one key in one transaction, arrives as an INSERT, and an INSERT records no old values
 * under any value capture type. A retract changelog must still take the old row back first, so this
 * keeps each key's last row: an INSERT of a key that holds one becomes UPDATE_BEFORE (the held row)
 * and UPDATE_AFTER; any other INSERT stays an INSERT. UPDATE and DELETE take the row before from
 * the change itself (NEW_ROW_AND_OLD_VALUES records it), so they are right also for rows written
 * before the job's start position, which the state cannot know.
 *
 * <p>State: the produced physical columns of each live row seen, in Flink's binary row format
 * (projection pushdown keeps only the selected columns); a DELETE removes it. It is keyed state,
 * checkpointed and rescaled with the job, and as large as the set of live rows the job has seen, as
 * the changelog normalization of upsert mode is.
 */
@Internal
final class AllChangelog extends KeyedProcessFunction<String, ChangeEvent, RowData> {
    private static final long serialVersionUID = 1L;

    private final RowDataChangeEventDeserializer rows;
    private final TypeInformation<RowData> physicalType;
    private transient ValueState<RowData> lastRow;

    /**
     * @param rows the deserializer of the table's produced columns
     * @param physicalType type information of {@code rows.physicalType()}
     */
    AllChangelog(RowDataChangeEventDeserializer rows, TypeInformation<RowData> physicalType) {
        this.rows = rows;
        this.physicalType = physicalType;
    }

    @Override
    public void open(OpenContext context) {
        lastRow =
                getRuntimeContext().getState(new ValueStateDescriptor<>("last-row", physicalType));
    }

    @Override
    public void processElement(ChangeEvent event, Context context, Collector<RowData> out)
            throws Exception {
        if (!rows.accepts(event)) {
            return;
        }
        switch (event.getChangeType()) {
            case INSERT:
                {
                    RowData held = lastRow.value();
                    RowData after = rows.after(event);
                    if (held == null) {
                        out.collect(rows.withMetadata(RowKind.INSERT, after, event));
                    } else {
                        out.collect(rows.withMetadata(RowKind.UPDATE_BEFORE, held, event));
                        out.collect(rows.withMetadata(RowKind.UPDATE_AFTER, after, event));
                    }
                    lastRow.update(after);
                    break;
                }
            case UPDATE:
                {
                    RowData after = rows.after(event);
                    out.collect(
                            rows.withMetadata(RowKind.UPDATE_BEFORE, rows.before(event), event));
                    out.collect(rows.withMetadata(RowKind.UPDATE_AFTER, after, event));
                    lastRow.update(after);
                    break;
                }
            case DELETE:
                out.collect(rows.withMetadata(RowKind.DELETE, rows.before(event), event));
                lastRow.clear();
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
}
