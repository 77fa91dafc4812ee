package io.spannercs.flink.source.reader;

import java.util.function.Consumer;

/**
 * How the fetcher drives the reading of one split: a partition's change stream query ({@link
 * PartitionStream}) or a snapshot split's read ({@link SnapshotStream}). Each runs its query on a
 * thread of the reader's query pool and hands records over through a bounded buffer.
 */
interface SplitStream {
    String token();

    boolean started();

    /** Whether the stream waits at a barrier (and so does not count against the query limit). */
    boolean blocked();

    /** Starts (or restarts) the query. */
    void start();

    /** Restarts a failed query whose backoff has passed. */
    void retryIfDue();

    /** The failure that ends the reading, or null. */
    RuntimeException failure();

    /** Moves up to {@code max} records into {@code out}. */
    int drain(int max, Consumer<FetchedRecord> out);

    /** Whether every record has been drained and the split is over. */
    boolean finishedAndDrained();

    /**
     * Whether the fetcher should take this stream's records now rather than at its next poll (a
     * snapshot read lets rows gather into batches first).
     */
    boolean hasBufferedRecords();

    /**
     * Buffers at most {@code records} until {@link #takeOver}: a partition read ahead of its
     * assignment may go to another reader, and what it read then is thrown away.
     */
    default void holdBack(int records) {}

    /** The read ahead was assigned here: it buffers as much as any split from now on. */
    default void takeOver() {}

    void close();
}
