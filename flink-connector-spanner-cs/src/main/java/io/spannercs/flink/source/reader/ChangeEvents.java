package io.spannercs.flink.source.reader;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.SpannerTypeNames;
import io.spannercs.flink.source.ChangeFilter;
import io.spannercs.flink.source.UnknownValueHandling;
import io.spannercs.flink.source.record.ColumnInfo;
import io.spannercs.flink.source.record.DataChangeRecord;
import io.spannercs.flink.source.record.ModRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Turns a data change record into the change events a reader emits: the filter applied, values
 * typed, one event per mod. Runs on the query threads, in parallel, so that the task thread only
 * hands events on (it was the bottleneck of a reader catching up). Stateless, so shared by them.
 */
final class ChangeEvents {
    /**
     * The events of one record.
     *
     * @param filtered row changes the filter dropped
     */
    record Converted(List<ChangeEvent> events, int filtered) {}

    private final ChangeFilter filter;
    private final ModValueConverter values;

    ChangeEvents(ChangeFilter filter, UnknownValueHandling unknownValues) {
        this.filter = filter;
        this.values = new ModValueConverter(unknownValues);
    }

    /**
     * @throws IllegalArgumentException for a value or mod type the source cannot read under {@link
     *     UnknownValueHandling#FAIL}, naming the table, column, partition and timestamp
     */
    Converted convert(DataChangeRecord d, String partition) {
        if (!filter.acceptsRecord(d)) {
            // Filtered before any value is converted: excluded tables cost almost nothing.
            return new Converted(List.of(), d.mods().size());
        }
        List<ColumnInfo> columns = new ArrayList<>(d.columns());
        columns.sort(Comparator.comparingLong(ColumnInfo::ordinalPosition));
        Map<String, String> columnTypes = columnTypes(columns);
        Instant commit =
                Instant.ofEpochSecond(
                        Math.floorDiv(d.timestampMicros(), 1_000_000L),
                        Math.floorMod(d.timestampMicros(), 1_000_000L) * 1000L);
        ChangeType changeType = values.changeType(d, partition);
        // Fields of the whole record are set once; each mod sets its own before build().
        ChangeEvent.Builder builder =
                ChangeEvent.builder()
                        .table(d.table())
                        .changeType(changeType)
                        .rawChangeType(changeType == ChangeType.UNKNOWN ? d.modType() : null)
                        .commitTimestamp(commit)
                        .serverTransactionId(d.serverTransactionId())
                        .recordSequence(d.recordSequence())
                        .transactionTag(d.transactionTag())
                        .systemTransaction(d.systemTransaction())
                        .partitionToken(partition)
                        .numberOfRecordsInTransaction(d.numberOfRecordsInTransaction())
                        .numberOfPartitionsInTransaction(d.numberOfPartitionsInTransaction())
                        .valueCaptureType(d.valueCaptureType())
                        .columnTypes(columnTypes);
        List<ChangeEvent> events = new ArrayList<>(d.mods().size());
        int filtered = 0;
        for (int i = 0; i < d.mods().size(); i++) {
            ModRecord m = filter.select(d, d.mods().get(i));
            if (m == null) {
                filtered++;
                continue;
            }
            events.add(
                    builder.keys(values.typed(d, partition, columns, m.keys()))
                            .newValues(values.typed(d, partition, columns, m.newValues()))
                            .oldValues(values.typed(d, partition, columns, m.oldValues()))
                            .modNumber(i)
                            .buildOwningMaps());
        }
        return new Converted(events, filtered);
    }

    /** Type names of the columns (in table order), as formats need a stable layout. */
    private static Map<String, String> columnTypes(List<ColumnInfo> ordered) {
        Map<String, String> out = new LinkedHashMap<>();
        ordered.forEach(c -> out.put(c.name(), SpannerTypeNames.of(c.type())));
        return out;
    }
}
