package io.spannercs.flink.source.spanner;

import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.split.SnapshotKey;
import io.spannercs.flink.source.split.SnapshotSplit;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * The queries a reader sends to Spanner: one window of a partition's change stream query, and the
 * rest of a snapshot split's key range. An interface so that the reader's coordination can run
 * against fakes; {@link ClientReads} is the real one.
 */
@Internal
public interface SpannerReads {

    /** The stream's dialect and partition mode, as the options give them or the database says. */
    ChangeStreamQuery detectQuery();

    /**
     * Starts the query of partition {@code token} (null: the root query) for one window.
     *
     * @return per row, the change records it holds
     * @throws SpannerReadException when Spanner rejects the query
     */
    RowCursor<List<ChangeRecord>> partitionWindow(
            ChangeStreamQuery query, String token, long startMicros, long endMicros);

    /**
     * Starts reading the rows of the split's key range after {@code after} (null: from its start),
     * in key order, at the snapshot timestamp.
     *
     * @throws SpannerReadException when Spanner rejects the read
     */
    RowCursor<SnapshotRow> snapshotRange(SnapshotSplit split, SnapshotKey after);
}
