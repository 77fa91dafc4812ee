package io.spannercs.flink.source.reader;

import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.format.ChangeType;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.record.ChildPartitionsRecord;
import io.spannercs.flink.source.record.DataChangeRecord;
import io.spannercs.flink.source.record.HeartbeatRecord;
import io.spannercs.flink.source.record.PartitionEndRecord;
import io.spannercs.flink.source.record.PartitionEventRecord;
import io.spannercs.flink.source.record.PartitionStartRecord;
import io.spannercs.flink.source.spanner.SnapshotRow;
import io.spannercs.flink.source.split.PartitionReport;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.flink.annotation.Internal;
import org.apache.flink.api.common.eventtime.Watermark;
import org.apache.flink.api.connector.source.SourceOutput;
import org.apache.flink.connector.base.source.reader.RecordEmitter;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.Collector;

/**
 * Emits one partition's records in order, one action per record kind: data hands on the change
 * events PartitionStream converted it to; partition records become reports to the enumerator; every
 * record advances the split's position and, through it, the split's watermark (never above the
 * enumerator's low watermark, never at or past a pending barrier).
 *
 * <p>Each element is deserialized before any of it is emitted or changes the split's state: a
 * deserializer that fails leaves neither part of a record downstream nor a state part-way through
 * it, so the reader can still take a checkpoint while its failure waits (see {@link
 * #failedWhileEmitting()}).
 */
@Internal
public final class ChangeStreamRecordEmitter<T>
        implements RecordEmitter<FetchedRecord, T, SplitState> {
    private final ChangeEventDeserializer<T> deserializer;
    private final Counter numRecordsFiltered;
    private final SpannerSourceConfig config;
    private final ReaderSharedState shared;
    private final ReportOutbox outbox;
    private final LocalBarriers localBarriers;
    private final BufferingCollector<T> collector = new BufferingCollector<>();
    // True from the first value handed downstream until the element is done: a failure meanwhile
    // came from the operators chained after the source, or left the split's state part-way.
    private boolean emitting;
    private final Counter numRecordsIn;
    private final Counter numSnapshotRows;

    /**
     * @param numRecordsIn the reader's {@code numRecordsIn}, which SourceReaderBase bumps once per
     *     fetched element: corrected here so that it counts row changes only (filtered ones too)
     * @param numRecordsFiltered row changes the filter dropped
     * @param numSnapshotRows snapshot rows emitted
     */
    ChangeStreamRecordEmitter(
            ChangeEventDeserializer<T> deserializer,
            SpannerSourceConfig config,
            ReaderSharedState shared,
            ReportOutbox outbox,
            LocalBarriers localBarriers,
            Counter numRecordsIn,
            Counter numRecordsFiltered,
            Counter numSnapshotRows) {
        this.numRecordsIn = numRecordsIn;
        this.numSnapshotRows = numSnapshotRows;
        this.numRecordsFiltered = numRecordsFiltered;
        this.deserializer = deserializer;
        this.config = config;
        this.shared = shared;
        this.outbox = outbox;
        this.localBarriers = localBarriers;
    }

    /**
     * Whether the last element failed after it began to go downstream: the operators chained after
     * the source, or the split's state, may then stand part-way through it, and no checkpoint may
     * be taken. A failure of the deserializer, or of reading, leaves this false.
     */
    boolean failedWhileEmitting() {
        return emitting;
    }

    @Override
    public void emitRecord(FetchedRecord element, SourceOutput<T> output, SplitState splitState)
            throws Exception {
        collector.clear();
        deserialize(element, splitState);
        emitting = true;
        emitDeserialized(element, output, splitState);
        emitting = false;
    }

    /** Runs the user's deserializer over the element's change events, holding what it returns. */
    private void deserialize(FetchedRecord element, SplitState splitState) throws Exception {
        if (splitState instanceof SnapshotSplitState snapshot) {
            if (element.kind() == FetchedRecord.Kind.SNAPSHOT_ROW) {
                // Counted before the deserializer and the operators downstream (a sink opening its
                // first file) hold it a while: numRecordsIn already counts it, and a reporter must
                // not see it as a change in between.
                numSnapshotRows.inc();
                long micros = snapshot.split().snapshotMicros();
                collector.timestamp = Math.floorDiv(micros, 1000);
                deserializer.deserialize(snapshotEvent(element.row(), snapshot), collector);
            }
        } else if (element.record() instanceof DataChangeRecord d && element.events() != null) {
            collector.timestamp = Math.floorDiv(d.timestampMicros(), 1000);
            for (ChangeEvent event : element.events().events()) {
                deserializer.deserialize(event, collector);
            }
        }
    }

    private void emitDeserialized(
            FetchedRecord element, SourceOutput<T> output, SplitState splitState) throws Exception {
        if (element.record() instanceof DataChangeRecord d) {
            numRecordsIn.inc(d.mods().size() - 1L);
            shared.countRowChanges(d.mods().size());
        } else if (element.kind() != FetchedRecord.Kind.SNAPSHOT_ROW) {
            numRecordsIn.dec();
        }
        if (splitState instanceof SnapshotSplitState snapshot) {
            emitSnapshot(element, output, snapshot);
            emitWatermark(output, snapshot);
            return;
        }
        PartitionSplitState state = (PartitionSplitState) splitState;
        switch (element.kind()) {
            case RECORD:
                emitRecord(element.record(), element.events(), output, state);
                outbox.progressChanged();
                break;
            case PARTITION_RECORDS:
                // One element, so that no checkpoint holds a move-in without its barrier.
                for (ChangeRecord r : element.records()) {
                    emitRecord(r, null, output, state);
                }
                if (!element.sources().isEmpty()) {
                    onBarrier(element.micros(), element.sources(), state);
                }
                outbox.progressChanged();
                break;
            case PARTITION_END:
                // One element, so that no checkpoint holds an end emitted by a split that has not
                // finished: restored, its query would start at the end and never see it again.
                for (ChangeRecord r : element.records()) {
                    emitRecord(r, null, output, state);
                }
                outbox.add(state, new PartitionReport.Finished(state.token(), element.micros()));
                state.markFinished();
                outbox.progressChanged();
                break;
            case WATERMARK_TICK:
            default:
                break;
        }
        emitWatermark(output, state);
    }

    /** The end of a snapshot split is reported to the enumerator. */
    private void emitSnapshot(FetchedRecord element, SourceOutput<T> output, SnapshotSplitState s) {
        if (element.kind() == FetchedRecord.Kind.SNAPSHOT_ROW) {
            collector.emitTo(output);
            s.emitted(element.row().key());
        } else if (element.kind() == FetchedRecord.Kind.SNAPSHOT_DONE) {
            outbox.add(s, new PartitionReport.SnapshotFinished(s.token(), s.rowsEmitted()));
            s.markFinished();
            outbox.progressChanged();
        }
    }

    /** A snapshot row is an INSERT at the snapshot timestamp, flagged as a snapshot row. */
    private static ChangeEvent snapshotEvent(SnapshotRow row, SnapshotSplitState s) {
        long micros = s.split().snapshotMicros();
        return ChangeEvent.builder()
                .table(s.split().table())
                .changeType(ChangeType.INSERT)
                .keys(row.keys())
                .newValues(row.values())
                .oldValues(Map.of())
                .commitTimestamp(
                        Instant.ofEpochSecond(
                                Math.floorDiv(micros, 1_000_000L),
                                Math.floorMod(micros, 1_000_000L) * 1000L))
                .serverTransactionId("")
                .recordSequence("")
                .transactionTag("")
                .partitionToken(s.token())
                .valueCaptureType("NEW_ROW")
                .columnTypes(row.columnTypes())
                .snapshot(true)
                .buildOwningMaps();
    }

    private void emitRecord(
            ChangeRecord r,
            ChangeEvents.Converted converted,
            SourceOutput<T> output,
            PartitionSplitState state)
            throws Exception {
        if (r instanceof DataChangeRecord d) {
            emitData(d, converted, output, state);
        } else if (r instanceof HeartbeatRecord h) {
            state.advance(h);
        } else if (r instanceof PartitionStartRecord s) {
            onPartitionStart(s, state);
        } else if (r instanceof PartitionEventRecord e) {
            onPartitionEvent(e, state);
        } else if (r instanceof PartitionEndRecord e) {
            // The partition is done once its query ends: records may still follow at this time.
            state.advance(e);
        } else if (r instanceof ChildPartitionsRecord c) {
            onChildPartitions(c, state);
        }
    }

    private void emitData(
            DataChangeRecord d,
            ChangeEvents.Converted converted,
            SourceOutput<T> output,
            PartitionSplitState state)
            throws Exception {
        if (converted == null) {
            // PartitionStream converts every data record it hands over; none travels in a group.
            throw new IllegalStateException(
                    "Data change record of " + state.token() + " was not converted: " + d);
        }
        numRecordsFiltered.inc(converted.filtered());
        collector.emitTo(output);
        state.advance(d);
    }

    private void onPartitionStart(PartitionStartRecord s, PartitionSplitState state) {
        List<PartitionReport.NewPartition> partitions = new ArrayList<>();
        for (String token : s.partitionTokens()) {
            partitions.add(new PartitionReport.NewPartition(token, s.timestampMicros(), List.of()));
        }
        outbox.add(
                state,
                new PartitionReport.Discovered(state.token(), s.timestampMicros(), partitions));
        state.advance(s);
    }

    /**
     * A move-out tells the destinations that this partition has reached the timestamp for the moved
     * ranges. Move-ins wait at the barrier set after every partition record of their timestamp, so
     * the move-outs of the same timestamp are reported first (two partitions swapping ranges must
     * not wait for each other).
     */
    private void onPartitionEvent(PartitionEventRecord e, PartitionSplitState state) {
        if (!e.moveOutDestinations().isEmpty()) {
            outbox.add(
                    state,
                    new PartitionReport.MovedOut(
                            state.token(), e.timestampMicros(), e.moveOutDestinations()));
            state.movedOut(e.timestampMicros());
        }
        state.advance(e);
    }

    /**
     * Every record at the move-in's timestamp is emitted; later ones wait for the sources. The
     * reader decides alone when it reads every source itself (see {@link LocalBarriers}).
     */
    private void onBarrier(long micros, List<String> sources, PartitionSplitState state) {
        if (!config.perKeyOrdering() || shared.isReleased(state.token(), micros)) {
            return;
        }
        switch (localBarriers.reached(state, micros, sources)) {
            case RELEASED:
                break;
            case HELD:
                state.block(micros, sources);
                break;
            case ASK_ENUMERATOR:
            default:
                state.block(micros, sources);
                outbox.add(
                        state, new PartitionReport.BarrierReached(state.token(), micros, sources));
                break;
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
        // The partition is done once its query ends: a split may list children in several records.
        state.advance(c);
    }

    private void emitWatermark(SourceOutput<T> output, SplitState state) {
        long micros = state.progressMicros();
        if (config.lowWatermarkCap()) {
            micros = Math.min(micros, shared.lowWatermarkMicros());
        }
        if (micros == Long.MIN_VALUE) {
            return;
        }
        long millis = watermarkMillis(micros);
        if (millis > state.lastWatermarkMillis()) {
            state.setLastWatermarkMillis(millis);
            output.emitWatermark(new Watermark(millis));
        }
    }

    /**
     * The watermark when every record up to {@code micros} has been emitted: future records have
     * timestamps above it, so their milliseconds are at least floor((micros + 1) / 1000), and the
     * watermark sits just below.
     */
    static long watermarkMillis(long micros) {
        return Math.floorDiv(micros + 1, 1000) - 1;
    }

    /**
     * Holds the values the deserializer returns for one element, with the element's timestamp,
     * until the element goes downstream.
     */
    private static final class BufferingCollector<T> implements Collector<T> {
        private final List<T> values = new ArrayList<>();
        long timestamp;

        @Override
        public void collect(T record) {
            values.add(record);
        }

        void emitTo(SourceOutput<T> output) {
            for (T value : values) {
                output.collect(value, timestamp);
            }
            values.clear();
        }

        void clear() {
            values.clear();
        }

        @Override
        public void close() {}
    }
}
