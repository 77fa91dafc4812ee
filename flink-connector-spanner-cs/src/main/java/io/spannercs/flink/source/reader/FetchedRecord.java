package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.spanner.SnapshotRow;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * What the fetcher hands to the emitter for one split: a change record, or a marker the fetcher
 * derived from the partition's query.
 *
 * <p>A checkpoint may fall between any two elements, so what one element implies for the next is
 * never split over two: the partition records of a timestamp travel together with the move-in
 * barrier they set ({@link Kind#PARTITION_RECORDS}), and a partition's last records with its end
 * ({@link Kind#PARTITION_END}).
 *
 * @param record the change record, for {@link Kind#RECORD}
 * @param micros the timestamp of the partition records (and of their barrier), or the partition's
 *     end ({@link Kind#PARTITION_END})
 * @param sources the partitions a barrier waits for: none when the records set no barrier
 * @param row a snapshot row, for {@link Kind#SNAPSHOT_ROW}
 * @param events for a data change record: its events, converted on the query thread (null: the
 *     emitter converts)
 * @param records the partition records of {@link Kind#PARTITION_RECORDS} and {@link
 *     Kind#PARTITION_END}, in {@code record_sequence} order
 */
@Internal
public record FetchedRecord(
        Kind kind,
        ChangeRecord record,
        long micros,
        List<String> sources,
        SnapshotRow row,
        ChangeEvents.Converted events,
        List<ChangeRecord> records) {

    /** What a fetched element is. */
    enum Kind {
        /** A change record of the partition. */
        RECORD,
        /** Asks the emitter to re-evaluate the split's watermark (the low watermark moved). */
        WATERMARK_TICK,
        /**
         * Every partition record of timestamp {@code micros}, in sequence order; when one of them
         * moved key ranges in ({@code sources} not empty), a barrier after them: nothing later may
         * be emitted until the sources have processed all records up to {@code micros}.
         */
        PARTITION_RECORDS,
        /**
         * The partition's query ended after its end record(s): its last partition records (maybe
         * none, when they came earlier), and the partition is done at {@code micros}.
         */
        PARTITION_END,
        /** A row of a snapshot split. */
        SNAPSHOT_ROW,
        /** A snapshot split has handed over every row of its key range. */
        SNAPSHOT_DONE
    }

    static final FetchedRecord WATERMARK_TICK =
            new FetchedRecord(Kind.WATERMARK_TICK, null, 0, List.of(), null, null, List.of());

    /** A data change record with its events. */
    static FetchedRecord of(ChangeRecord record, ChangeEvents.Converted events) {
        return new FetchedRecord(
                Kind.RECORD, record, record.timestampMicros(), List.of(), null, events, List.of());
    }

    static FetchedRecord of(ChangeRecord record) {
        return of(record, null);
    }

    /** The partition records of one timestamp and the barrier of their move-ins, if any. */
    static FetchedRecord partitionRecords(
            long micros, List<ChangeRecord> records, List<String> barrierSources) {
        return new FetchedRecord(
                Kind.PARTITION_RECORDS,
                null,
                micros,
                List.copyOf(barrierSources),
                null,
                null,
                List.copyOf(records));
    }

    /** The partition's last records and its end at {@code endMicros}. */
    static FetchedRecord partitionEnd(long endMicros, List<ChangeRecord> records) {
        return new FetchedRecord(
                Kind.PARTITION_END, null, endMicros, List.of(), null, null, List.copyOf(records));
    }

    /** Whether nothing after this element may be emitted until its barrier is released. */
    boolean setsBarrier() {
        return kind == Kind.PARTITION_RECORDS && !sources.isEmpty();
    }

    static FetchedRecord snapshotRow(SnapshotRow row) {
        return new FetchedRecord(Kind.SNAPSHOT_ROW, null, 0, List.of(), row, null, List.of());
    }

    static final FetchedRecord SNAPSHOT_DONE =
            new FetchedRecord(Kind.SNAPSHOT_DONE, null, 0, List.of(), null, null, List.of());
}
