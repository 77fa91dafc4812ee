package io.spannercs.flink.source.spanner;

import io.spannercs.flink.source.split.SnapshotSplit;
import java.time.Duration;
import java.util.List;
import org.apache.flink.annotation.Internal;

/** Cuts the tables a change stream tracks into snapshot splits. */
@Internal
public interface SnapshotPlanner extends AutoCloseable {

    /** The splits of a snapshot, and what the planning learned. */
    record Plan(List<SnapshotSplit> splits, long rows, int tables, Duration retention) {
        public Plan {
            splits = List.copyOf(splits);
        }
    }

    /**
     * Reads the database's version retention, the tracked tables and columns, and cuts every table
     * into key ranges of about the configured number of rows, at the snapshot timestamp.
     *
     * @throws RuntimeException with a message naming the option and the fix, when the snapshot
     *     timestamp lies outside the version retention or the stream cannot be read
     */
    Plan plan();

    /** Stops a planning in progress. */
    @Override
    void close();
}
