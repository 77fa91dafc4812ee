package io.spannercs.flink.source.spanner;

import io.spannercs.flink.source.split.PartitionReport;
import java.util.List;
import org.apache.flink.annotation.Internal;

/**
 * Lists the partitions a change stream read starts with (the "root" query). An interface so that
 * the enumerator can be tested without Spanner; {@link SpannerRootPartitions} is the real one.
 */
@Internal
public interface RootPartitions extends AutoCloseable {

    /**
     * Runs the root query. Called once per job, off the coordinator thread.
     *
     * @param startMicros where the source starts reading
     * @return the first partitions, each with its start timestamp and (normally no) parents
     * @throws Exception when the query fails; the message says why, naming the change stream
     */
    List<PartitionReport.NewPartition> query(long startMicros) throws Exception;

    /**
     * The stream's query as the root query found it (dialect and partition mode), for readers to
     * use instead of asking the database again; null where unknown.
     */
    default ChangeStreamQuery query() {
        return null;
    }

    /** Releases any client; a query in progress may fail. */
    @Override
    default void close() {}
}
