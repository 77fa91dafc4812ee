package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.ChangeFilter;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.spanner.ChangeStreamQuery;
import io.spannercs.flink.source.spanner.SpannerReads;
import io.spannercs.flink.source.split.PartitionReport;
import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.SnapshotSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import org.apache.flink.annotation.Internal;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsAddition;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;

/**
 * Hands the records of all partitions assigned to one reader to the single fetcher thread, each
 * partition read by a {@link PartitionStream} whose query runs on a thread of the reader's query
 * pool. A partition blocked at a barrier does not hold back the others. At most {@code
 * maxConcurrentPartitionsPerReader} unblocked queries run at once; the rest wait their turn.
 */
@Internal
public final class ChangeStreamSplitReader implements SplitReader<FetchedRecord, SpannerSplit> {
    private static final int MAX_RECORDS_PER_FETCH = 2048;
    private static final long MAX_WAIT_MILLIS = 50;

    private final SpannerSourceConfig config;
    private final SpannerReads reads;
    private final Executor queryThreads;
    private final ReaderSharedState shared;
    private final ChangeEvents events;
    private final Map<String, SplitStream> streams = new LinkedHashMap<>();
    // Queries of announced partitions started before their assignment: they outlive this reader.
    private final ReadAheads readAheads;
    private ChangeStreamQuery query;
    private final Object signal = new Object();
    private boolean signalled;
    private long seenLowWatermarkVersion;

    public ChangeStreamSplitReader(
            SpannerSourceConfig config,
            SpannerReads reads,
            Executor queryThreads,
            ReaderSharedState shared,
            ReadAheads readAheads,
            ChangeFilter filter) {
        this.readAheads = readAheads;
        this.events = new ChangeEvents(filter, config.unknownValueHandling());
        this.config = config;
        this.reads = reads;
        this.queryThreads = queryThreads;
        this.shared = shared;
        shared.setFetcherWakeUp(this::notifyData);
    }

    @Override
    public RecordsWithSplitIds<FetchedRecord> fetch() throws IOException {
        waitForWork();
        RecordsBySplits.Builder<FetchedRecord> out = new RecordsBySplits.Builder<>();
        boolean tick = shared.lowWatermarkVersion() != seenLowWatermarkVersion;
        seenLowWatermarkVersion = shared.lowWatermarkVersion();
        startQueriesWithinLimit();
        readAhead();
        int budget = MAX_RECORDS_PER_FETCH;
        List<String> finished = new ArrayList<>();
        for (SplitStream s : streams.values()) {
            RuntimeException failure = s.failure();
            if (failure != null) {
                throw new IOException(failure.getMessage(), failure);
            }
            s.retryIfDue();
            if (tick) {
                out.add(s.token(), FetchedRecord.WATERMARK_TICK);
            }
            int share = Math.max(16, budget / Math.max(1, streams.size()));
            s.drain(share, r -> out.add(s.token(), r));
            if (s.finishedAndDrained()) {
                finished.add(s.token());
            }
        }
        for (String token : finished) {
            streams.remove(token).close();
            shared.forget(token);
            out.addFinishedSplit(token);
        }
        return out.build();
    }

    /** Waits until a stream has news, the reader is woken up, or a short timeout passes. */
    private void waitForWork() throws IOException {
        boolean ready = anyReady();
        synchronized (signal) {
            if (!signalled && !ready) {
                try {
                    signal.wait(MAX_WAIT_MILLIS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("Interrupted while waiting for change records", e);
                }
            }
            signalled = false;
        }
    }

    private boolean anyReady() {
        for (SplitStream s : streams.values()) {
            if (s.hasBufferedRecords() || s.finishedAndDrained() || s.failure() != null) {
                return true;
            }
        }
        return shared.lowWatermarkVersion() != seenLowWatermarkVersion;
    }

    private void notifyData() {
        synchronized (signal) {
            signalled = true;
            signal.notifyAll();
        }
    }

    private void startQueriesWithinLimit() {
        int running = 0;
        for (SplitStream s : streams.values()) {
            if (s.started() && !s.blocked()) {
                running++;
            }
        }
        for (SplitStream s : streams.values()) {
            if (running >= config.maxConcurrentPartitionsPerReader()) {
                return;
            }
            if (!s.started()) {
                s.start();
                running++;
            }
        }
    }

    /**
     * Starts the queries of partitions that records just announced, as the parent's reader will
     * most likely be given them: a legacy child is assigned only once its parents have finished,
     * and its query's first row can take long (on Google's emulator most of a second), time the
     * read ahead overlaps with the end of the parent. Nothing is emitted before the assignment.
     */
    private void readAhead() {
        List<PartitionReport.NewPartition> announced = shared.takeAnnounced();
        if (query == null) {
            query = shared.knownQuery(); // a new split reader learns it before its first split
        }
        if (query != null && config.readAhead()) {
            // A read ahead wakes whichever fetcher runs when its records come.
            readAheads.start(
                    announced,
                    config.endMicros(),
                    streams::containsKey,
                    split -> newPartitionStream(split, shared::wakeFetcher));
        }
        readAheads.expire();
    }

    private PartitionStream newPartitionStream(PartitionSplit split, Runnable onData) {
        return new PartitionStream(
                split, config, query, reads, queryThreads, shared, events, onData);
    }

    @Override
    public void handleSplitsChanges(SplitsChange<SpannerSplit> change) {
        if (!(change instanceof SplitsAddition)) {
            throw new UnsupportedOperationException(
                    "Unsupported split change " + change.getClass().getSimpleName());
        }
        for (SpannerSplit split : change.splits()) {
            if (split instanceof SnapshotSplit s) {
                streams.put(
                        s.splitId(),
                        new SnapshotStream(s, config, reads, queryThreads, this::notifyData));
                continue;
            }
            if (query == null) {
                // Once per reader, on the fetcher thread: dialect and partition mode of the stream,
                // as the enumerator told them, else asked of the database.
                query = shared.knownQuery();
                if (query == null) {
                    query = reads.detectQuery();
                }
                shared.setPartitionMode(query.partitionMode());
            }
            SplitStream ahead = readAheads.take((PartitionSplit) split);
            if (ahead != null) {
                shared.countReadAheadTaken();
                streams.put(split.splitId(), ahead);
                continue;
            }
            streams.put(
                    split.splitId(), newPartitionStream((PartitionSplit) split, this::notifyData));
        }
        notifyData();
    }

    @Override
    public void wakeUp() {
        notifyData();
    }

    @Override
    public void close() {
        streams.values().forEach(SplitStream::close);
        streams.clear();
        // Reads ahead belong to the source reader (ReadAheads), which closes them.
    }
}
