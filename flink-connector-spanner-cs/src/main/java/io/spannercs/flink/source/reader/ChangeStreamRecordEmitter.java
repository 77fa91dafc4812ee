package io.spannercs.flink.source.reader;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.format.SpannerTypeNames;
import io.spannercs.flink.format.SpannerValues;
import io.spannercs.flink.source.ChangeFilter;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.event.PartitionReport;
import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.record.ChildPartitionsRecord;
import io.spannercs.flink.source.record.ColumnInfo;
import io.spannercs.flink.source.record.DataChangeRecord;
import io.spannercs.flink.source.record.HeartbeatRecord;
import io.spannercs.flink.source.record.ModRecord;
import io.spannercs.flink.source.record.PartitionEndRecord;
import io.spannercs.flink.source.record.PartitionEventRecord;
import io.spannercs.flink.source.record.PartitionStartRecord;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;

/**
 * Emits one partition's records in order, one action per record kind: data becomes change events;
 * partition records become reports to the enumerator; every record advances the split's position
 * and, through it, the split's watermark (never above the enumerator's low watermark, never at or
 * past a pending barrier).
 */
@Internal
public final class ChangeStreamRecordEmitter<T>
        implements RecordEmitter<FetchedRecord, T, PartitionSplitState> {
    private final ChangeEventDeserializer<T> deserializer;
    private final ChangeFilter filter;
    private final Counter numRecordsFiltered;
    private final SpannerSourceConfig config;
    private final ReaderSharedState shared;
    private final ReportOutbox outbox;
    private final ForwardingCollector<T> collector = new ForwardingCollector<>();
    private final Counter numRecordsIn;

    /**
     * @param numRecordsIn the reader's {@code numRecordsIn}, which SourceReaderBase bumps once per
     *     fetched element: corrected here so that it counts row changes only (filtered ones too)
     * @param numRecordsFiltered row changes the filter dropped
     */
    ChangeStreamRecordEmitter(
            ChangeEventDeserializer<T> deserializer,
            ChangeFilter filter,
            SpannerSourceConfig config,
            ReaderSharedState shared,
            ReportOutbox outbox,
            Counter numRecordsIn,
            Counter numRecordsFiltered) {
        this.numRecordsIn = numRecordsIn;
        this.numRecordsFiltered = numRecordsFiltered;
        this.deserializer = deserializer;
        this.filter = filter;
        this.config = config;
        this.shared = shared;
        this.outbox = outbox;
    }

    @Override
    public void emitRecord(FetchedRecord element, SourceOutput<T> output, PartitionSplitState state)
            throws Exception {
        if (element.isTick() || !(element.record() instanceof DataChangeRecord)) {
            numRecordsIn.dec();
        } else {
            int mods = ((DataChangeRecord) element.record()).mods().size();
            numRecordsIn.inc(mods - 1L);
            shared.countRowChanges(mods);
        }
        if (!element.isTick()) {
            ChangeRecord r = element.record();
            if (r instanceof DataChangeRecord d) {
                emitData(d, output, state);
            } else if (r instanceof HeartbeatRecord h) {
                state.advanceTo(h.timestampMicros(), null);
            } else if (r instanceof PartitionStartRecord s) {
                onPartitionStart(s, state);
            } else if (r instanceof PartitionEventRecord e) {
                onPartitionEvent(e, state);
            } else if (r instanceof PartitionEndRecord e) {
                state.advanceTo(e.timestampMicros(), e.recordSequence());
                outbox.add(state, new PartitionReport.Finished(state.token(), e.timestampMicros()));
                state.markFinished();
            } else if (r instanceof ChildPartitionsRecord c) {
                onChildPartitions(c, state);
            }
            outbox.progressChanged();
        }
        emitWatermark(output, state);
    }

    private void emitData(DataChangeRecord d, SourceOutput<T> output, PartitionSplitState state)
            throws Exception {
        if (!filter.acceptsRecord(d)) {
            // Filtered before any value is converted: excluded tables cost almost nothing.
            numRecordsFiltered.inc(d.mods().size());
            state.advanceTo(d.timestampMicros(), d.recordSequence());
            return;
        }
        List<ColumnInfo> columns = new ArrayList<>(d.columns());
        columns.sort(Comparator.comparingLong(ColumnInfo::ordinalPosition));
        Map<String, String> columnTypes = columnTypes(columns);
        long timestampMillis = Math.floorDiv(d.timestampMicros(), 1000);
        Instant commit =
                Instant.ofEpochSecond(
                        Math.floorDiv(d.timestampMicros(), 1_000_000L),
                        Math.floorMod(d.timestampMicros(), 1_000_000L) * 1000L);
        collector.target = output;
        collector.timestamp = timestampMillis;
        for (int i = 0; i < d.mods().size(); i++) {
            ModRecord m = filter.select(d, d.mods().get(i));
            if (m == null) {
                numRecordsFiltered.inc();
                continue;
            }
            ChangeEvent event =
                    new ChangeEvent(
                            d.table(),
                            ChangeType.valueOf(d.modType()),
                            typed(columns, m.keys()),
                            typed(columns, m.newValues()),
                            typed(columns, m.oldValues()),
                            commit,
                            d.serverTransactionId(),
                            d.recordSequence(),
                            i,
                            d.transactionTag(),
                            d.systemTransaction(),
                            state.token(),
                            d.numberOfRecordsInTransaction(),
                            d.numberOfPartitionsInTransaction(),
                            d.valueCaptureType(),
                            columnTypes);
            deserializer.deserialize(event, collector);
        }
        state.advanceTo(d.timestampMicros(), d.recordSequence());
    }

    /** Type names of the columns (in table order), as formats need a stable layout. */
    private static Map<String, String> columnTypes(List<ColumnInfo> ordered) {
        Map<String, String> out = new LinkedHashMap<>();
        ordered.forEach(c -> out.put(c.name(), SpannerTypeNames.of(c.type())));
        return out;
    }

    /**
     * Typed values in the table's column order (ordinal position), whatever order the record lists
     * them in: PostgreSQL's JSONB records, for one, sort object keys by length.
     */
    private static Map<String, Object> typed(
            List<ColumnInfo> columns, Map<String, com.google.protobuf.Value> values) {
        Map<String, Object> out = new LinkedHashMap<>();
        if (values.isEmpty()) {
            return out;
        }
        for (ColumnInfo c : columns) {
            com.google.protobuf.Value v = values.get(c.name());
            if (v != null) {
                out.put(c.name(), SpannerValues.toJava(c.type(), v));
            }
        }
        if (out.size() != values.size()) {
            for (String name : values.keySet()) {
                if (!out.containsKey(name)) {
                    throw new IllegalStateException(
                            "Change record has a value for column "
                                    + name
                                    + " but no metadata for it");
                }
            }
        }
        return out;
    }

    private void onPartitionStart(PartitionStartRecord s, PartitionSplitState state) {
        List<PartitionReport.NewPartition> partitions = new ArrayList<>();
        for (String token : s.partitionTokens()) {
            partitions.add(new PartitionReport.NewPartition(token, s.timestampMicros(), List.of()));
        }
        outbox.add(
                state,
                new PartitionReport.Discovered(state.token(), s.timestampMicros(), partitions));
        state.advanceTo(s.timestampMicros(), s.recordSequence());
    }

    private void onPartitionEvent(PartitionEventRecord e, PartitionSplitState state) {
        // Move-outs first: two partitions swapping ranges at one timestamp must not wait for each
        // other.
        if (!e.moveOutDestinations().isEmpty()) {
            outbox.add(
                    state,
                    new PartitionReport.MovedOut(
                            state.token(), e.timestampMicros(), e.moveOutDestinations()));
        }
        state.advanceTo(e.timestampMicros(), e.recordSequence());
        if (config.perKeyOrdering()
                && !e.moveInSources().isEmpty()
                && !shared.isReleased(state.token(), e.timestampMicros())) {
            state.block(e.timestampMicros(), e.moveInSources());
            outbox.add(
                    state,
                    new PartitionReport.BarrierReached(
                            state.token(), e.timestampMicros(), e.moveInSources()));
        }
    }

    private void onChildPartitions(ChildPartitionsRecord c, PartitionSplitState state) {
        List<PartitionReport.NewPartition> partitions = new ArrayList<>();
        for (ChildPartitionsRecord.ChildPartition child : c.children()) {
            partitions.add(
                    new PartitionReport.NewPartition(
                            child.token(), c.timestampMicros(), child.parentTokens()));
        }
        outbox.add(
                state,
                new PartitionReport.Discovered(state.token(), c.timestampMicros(), partitions));
        state.advanceTo(c.timestampMicros(), c.recordSequence());
        outbox.add(state, new PartitionReport.Finished(state.token(), c.timestampMicros()));
        state.markFinished();
    }

    private void emitWatermark(SourceOutput<T> output, PartitionSplitState state) {
        long micros = state.progressMicros();
        if (config.lowWatermarkCap()) {
            micros = Math.min(micros, shared.lowWatermarkMicros());
        }
        if (micros == Long.MIN_VALUE) {
            return;
        }
        // Future records have timestamps above `micros`, so their milliseconds are at least
        // floor((micros + 1) / 1000): the watermark sits just below.
        long millis = Math.floorDiv(micros + 1, 1000) - 1;
        if (millis > state.lastWatermarkMillis()) {
            state.setLastWatermarkMillis(millis);
            output.emitWatermark(new Watermark(millis));
        }
    }

    /** Passes deserialized values to the split output with the commit timestamp. */
    private static final class ForwardingCollector<T> implements Collector<T> {
        SourceOutput<T> target;
        long timestamp;

        @Override
        public void collect(T record) {
            target.collect(record, timestamp);
        }

        @Override
        public void close() {}
    }
}
