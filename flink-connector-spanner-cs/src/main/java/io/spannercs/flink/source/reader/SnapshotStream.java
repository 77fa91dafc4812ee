package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.spanner.SnapshotRow;
import io.spannercs.flink.source.spanner.SpannerReadException;
import io.spannercs.flink.source.spanner.SpannerReads;
import io.spannercs.flink.source.split.SnapshotKey;
import io.spannercs.flink.source.split.SnapshotSplit;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one snapshot split: its key range of one table at the snapshot timestamp, in primary-key
 * order ({@link SpannerReads#snapshotRange}), as a {@link QueryStream} (a query thread, a bounded
 * buffer, retries). Rows are converted on the query thread. A transient error restarts the read
 * after the last row fetched; the split's position (the last row emitted) lets a restored split do
 * the same, so every row of the range is emitted once.
 */
final class SnapshotStream extends QueryStream<SnapshotRow> {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotStream.class);

    /**
     * Rows buffered before the fetcher is woken: it takes them in batches rather than one by one
     * (waking it per row costs more than reading the row). Rows of a read that ends or stops are
     * taken at once; others wait at most the fetcher's poll interval.
     */
    private static final int WAKE_BATCH = 128;

    private final SnapshotSplit split;
    private final SpannerReads reads;
    private final int wakeAt;

    private SnapshotKey fetched; // the key of the last row put into the buffer

    SnapshotStream(
            SnapshotSplit split,
            SpannerSourceConfig config,
            SpannerReads reads,
            Executor queryThreads,
            Runnable onData) {
        super(config, queryThreads, onData);
        this.split = split;
        this.reads = reads;
        this.fetched = split.lastEmitted();
        this.ended = split.finished();
        this.wakeAt = Math.min(WAKE_BATCH, config.bufferedRecordsPerPartition());
    }

    @Override
    public String token() {
        return split.splitId();
    }

    @Override
    public boolean blocked() {
        return false;
    }

    @Override
    public synchronized void start() {
        started = true;
        if (ended || failure != null) {
            return;
        }
        SnapshotKey after = fetched;
        launch(() -> reads.snapshotRange(split, after));
    }

    @Override
    protected boolean onRow(long run, SnapshotRow row) {
        boolean wakeFetcher;
        synchronized (this) {
            if (run != generation) {
                return false;
            }
            wakeFetcher = buffer.size() + 1 == wakeAt;
            buffer.add(FetchedRecord.snapshotRow(row));
            fetched = row.key();
            retries.progressed();
        }
        if (wakeFetcher) {
            onData.run();
        }
        return true;
    }

    @Override
    protected void onRunDone(long run) {
        buffer.add(FetchedRecord.SNAPSHOT_DONE);
        ended = true;
    }

    @Override
    protected RuntimeException failureOf(SpannerReadException e) {
        // The split's timestamp is fixed: a restart reads at the same one.
        return e.snapshotFailure(describe(), split.snapshotMicros(), config);
    }

    @Override
    protected String rowFailure() {
        return "cannot convert a row";
    }

    @Override
    protected Logger log() {
        return LOG;
    }

    @Override
    protected String describe() {
        return "Snapshot of table "
                + split.table()
                + " in "
                + config.databaseName()
                + " (split "
                + split.splitId()
                + ")";
    }

    @Override
    public synchronized boolean hasBufferedRecords() {
        return buffer.size() >= wakeAt || (!buffer.isEmpty() && !running);
    }
}
