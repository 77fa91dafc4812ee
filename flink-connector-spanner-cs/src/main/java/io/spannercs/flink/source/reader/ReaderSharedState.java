package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.config.SpannerSourceConfig;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.annotation.Internal;
import org.apache.flink.metrics.Counter;
import org.apache.flink.metrics.SimpleCounter;

/**
 * What the reader's task thread tells the fetcher thread: released barriers and the enumerator's
 * low watermark. Also carries the fetch-lag measurement the other way.
 */
@Internal
public final class ReaderSharedState {
    private final Map<String, Long> releasedBarriers = new ConcurrentHashMap<>();
    private final AtomicLong lowWatermarkMicros = new AtomicLong(Long.MIN_VALUE);
    private final AtomicLong lowWatermarkVersion = new AtomicLong();
    private final AtomicLong fetchLagMillis = new AtomicLong(-1);
    private final AtomicLong queryRestarts = new AtomicLong();
    private final Counter partitionQueries = new SimpleCounter();

    // Row changes read, by the partition mode the stream was detected to have.
    private final Counter mutableKeyRangeRecords = new SimpleCounter();
    private final Counter immutableKeyRangeRecords = new SimpleCounter();
    private volatile SpannerSourceConfig.PartitionMode partitionMode;

    void setPartitionMode(SpannerSourceConfig.PartitionMode mode) {
        this.partitionMode = mode;
    }

    // The stream's query as the enumerator found it, or null to ask the database.
    private volatile io.spannercs.flink.source.spanner.ChangeStreamQuery knownQuery;

    void setKnownQuery(io.spannercs.flink.source.spanner.ChangeStreamQuery query) {
        this.knownQuery = query;
    }

    io.spannercs.flink.source.spanner.ChangeStreamQuery knownQuery() {
        return knownQuery;
    }

    // Partitions that records just announced, for the fetcher to start reading ahead.
    private final java.util.concurrent.ConcurrentLinkedQueue<
                    io.spannercs.flink.source.split.PartitionReport.NewPartition>
            announced = new java.util.concurrent.ConcurrentLinkedQueue<>();

    private final Counter readAheadsTaken = new SimpleCounter();

    void countReadAheadTaken() {
        readAheadsTaken.inc();
    }

    /** Partitions whose query was started ahead of their assignment and then taken over. */
    Counter readAheadsTaken() {
        return readAheadsTaken;
    }

    /** A record announced a partition: the fetcher may start its query before it is assigned. */
    void announced(io.spannercs.flink.source.split.PartitionReport.NewPartition partition) {
        announced.add(partition);
    }

    /** The partitions announced since the last call. */
    java.util.List<io.spannercs.flink.source.split.PartitionReport.NewPartition> takeAnnounced() {
        java.util.List<io.spannercs.flink.source.split.PartitionReport.NewPartition> out =
                new java.util.ArrayList<>();
        for (var p = announced.poll(); p != null; p = announced.poll()) {
            out.add(p);
        }
        return out;
    }

    /** Counts row changes read, under the stream's partition mode. */
    void countRowChanges(int n) {
        (partitionMode == SpannerSourceConfig.PartitionMode.MUTABLE_KEY_RANGE
                        ? mutableKeyRangeRecords
                        : immutableKeyRangeRecords)
                .inc(n);
    }

    Counter mutableKeyRangeRecords() {
        return mutableKeyRangeRecords;
    }

    Counter immutableKeyRangeRecords() {
        return immutableKeyRangeRecords;
    }

    // Wakes the fetcher thread; set by the split reader.
    private volatile Runnable fetcherWakeUp = () -> {};

    void setFetcherWakeUp(Runnable wakeUp) {
        this.fetcherWakeUp = wakeUp;
    }

    /** Wakes the fetcher thread that runs now (Flink replaces an idle one). */
    void wakeFetcher() {
        fetcherWakeUp.run();
    }

    void releaseBarrier(String token, long micros) {
        releasedBarriers.merge(token, micros, Math::max);
        // The released partition's records wait in its buffer: drain them now, not at the next
        // poll.
        fetcherWakeUp.run();
    }

    /** Whether the barrier at {@code micros} of the partition has been released. */
    boolean isReleased(String token, long micros) {
        Long released = releasedBarriers.get(token);
        return released != null && released >= micros;
    }

    void forget(String token) {
        releasedBarriers.remove(token);
    }

    void setLowWatermark(long micros) {
        if (lowWatermarkMicros.getAndAccumulate(micros, Math::max) < micros) {
            lowWatermarkVersion.incrementAndGet();
            fetcherWakeUp.run(); // splits held by the cap may now advance their watermarks
        }
    }

    long lowWatermarkMicros() {
        return lowWatermarkMicros.get();
    }

    long lowWatermarkVersion() {
        return lowWatermarkVersion.get();
    }

    void recordFetchLag(long millis) {
        fetchLagMillis.set(millis);
    }

    long fetchLagMillis() {
        return fetchLagMillis.get();
    }

    /** Partition queries started: one per query window, plus retries. */
    Counter partitionQueries() {
        return partitionQueries;
    }

    void countQueryRestart() {
        queryRestarts.incrementAndGet();
    }

    long queryRestarts() {
        return queryRestarts.get();
    }
}
