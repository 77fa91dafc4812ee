package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.record.ChangeRecord;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * What the fetcher hands to the emitter for one split: a change record, or a marker the fetcher
 * derived from the partition's query.
 *
 * @param record the change record, for {@link Kind#RECORD}
 * @param micros the barrier's timestamp ({@link Kind#BARRIER}) or the partition's end ({@link
 *     Kind#PARTITION_DONE})
 * @param sources the partitions a barrier waits for
 * @param row a snapshot row, for {@link Kind#SNAPSHOT_ROW}
 * @param events for a data change record: its events, converted on the query thread (null: the
 *     emitter converts)
 */
@Internal
public record FetchedRecord(
        Kind kind,
        ChangeRecord record,
        long micros,
        List<String> sources,
        SnapshotRow row,
        ChangeEvents.Converted events) {

    /** What a fetched element is. */
    enum Kind {
        /** A change record of the partition. */
        RECORD,
        /** Asks the emitter to re-evaluate the split's watermark (the low watermark moved). */
        WATERMARK_TICK,
        /**
         * Every record at {@code micros} has been handed over and one of them moved key ranges in:
         * nothing later may be emitted until the sources have processed all records up to it.
         */
        BARRIER,
        /** The partition's query ended after its end record(s): the partition is done. */
        PARTITION_DONE,
        /** A row of a snapshot split. */
        SNAPSHOT_ROW,
        /** A snapshot split has handed over every row of its key range. */
        SNAPSHOT_DONE
    }

    static final FetchedRecord WATERMARK_TICK =
            new FetchedRecord(Kind.WATERMARK_TICK, null, 0, List.of(), null, null);

    /** A data change record with its events. */
    static FetchedRecord of(ChangeRecord record, ChangeEvents.Converted events) {
        return new FetchedRecord(
                Kind.RECORD, record, record.timestampMicros(), List.of(), null, events);
    }

    static FetchedRecord of(ChangeRecord record) {
        return new FetchedRecord(
                Kind.RECORD, record, record.timestampMicros(), List.of(), null, null);
    }

    static FetchedRecord barrier(long micros, List<String> sources) {
        return new FetchedRecord(Kind.BARRIER, null, micros, List.copyOf(sources), null, null);
    }

    static FetchedRecord partitionDone(long endMicros) {
        return new FetchedRecord(Kind.PARTITION_DONE, null, endMicros, List.of(), null, null);
    }

    static FetchedRecord snapshotRow(SnapshotRow row) {
        return new FetchedRecord(Kind.SNAPSHOT_ROW, null, 0, List.of(), row, null);
    }

    static final FetchedRecord SNAPSHOT_DONE =
            new FetchedRecord(Kind.SNAPSHOT_DONE, null, 0, List.of(), null, null);
}
