package io.spannercs.flink.source.reader;

import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.TimestampBound;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.spanner.SpannerErrors;
import io.spannercs.flink.source.split.SnapshotKey;
import io.spannercs.flink.source.split.SnapshotSplit;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one snapshot split: its key range of one table at the snapshot timestamp, with a single-use
 * read-only read at exactly that timestamp, in primary-key order, on a thread of the reader's query
 * pool. Rows are converted there and go into a bounded buffer (a full buffer stops the read: gRPC
 * flow control holds the rest in Spanner). A transient error restarts the read after the last row
 * fetched; the split's position (the last row emitted) lets a restored split do the same, so every
 * row of the range is emitted once.
 */
final class SnapshotStream implements SplitStream {
    private static final Logger LOG = LoggerFactory.getLogger(SnapshotStream.class);

    private final SnapshotSplit split;
    private final SpannerSourceConfig config;
    private final DatabaseClient client;
    private final Executor queryThreads;
    private final Runnable onData;
    private final List<String> readColumns;

    /**
     * Rows buffered before the fetcher is woken: it takes them in batches rather than one by one
     * (waking it per row costs more than reading the row). Rows of a read that ends or stops are
     * taken at once; others wait at most the fetcher's poll interval.
     */
    private static final int WAKE_BATCH = 128;

    private final int wakeAt;

    /** For each column in table order: its position in {@link #readColumns}, and if it is a key. */
    private final int[] readIndex;

    private final boolean[] isKey;
    private final ArrayDeque<FetchedRecord> buffer = new ArrayDeque<>();

    private SnapshotKey fetched; // the key of the last row put into the buffer
    private ResultSet resultSet;
    private boolean running;
    private long generation;
    private boolean started;
    private boolean ended;
    private RuntimeException failure;
    private final RetrySchedule retries = new RetrySchedule();

    SnapshotStream(
            SnapshotSplit split,
            SpannerSourceConfig config,
            DatabaseClient client,
            Executor queryThreads,
            Runnable onData) {
        this.split = split;
        this.config = config;
        this.client = client;
        this.queryThreads = queryThreads;
        this.onData = onData;
        this.fetched = split.lastEmitted();
        this.ended = split.finished();
        // Key columns first, so that the key of a row is its first columns.
        List<String> columns = new ArrayList<>(split.keyColumns());
        for (String c : split.columns()) {
            if (!split.keyColumns().contains(c)) {
                columns.add(c);
            }
        }
        this.readColumns = List.copyOf(columns);
        this.wakeAt = Math.min(WAKE_BATCH, config.bufferedRecordsPerPartition());
        this.readIndex = new int[split.columns().size()];
        this.isKey = new boolean[readIndex.length];
        for (int i = 0; i < readIndex.length; i++) {
            readIndex[i] = readColumns.indexOf(split.columns().get(i));
            isKey[i] = split.keyColumns().contains(split.columns().get(i));
        }
    }

    @Override
    public String token() {
        return split.splitId();
    }

    @Override
    public synchronized boolean started() {
        return started;
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
        long current = ++generation;
        running = true;
        SnapshotKey after = fetched;
        queryThreads.execute(() -> runRead(current, after));
    }

    private void runRead(long read, SnapshotKey after) {
        TimestampBound atSnapshot =
                TimestampBound.ofReadTimestamp(
                        Timestamp.ofTimeMicroseconds(split.snapshotMicros()));
        try {
            try (ResultSet rs =
                    client.singleUse(atSnapshot)
                            .read(split.table(), split.remaining(after), readColumns)) {
                synchronized (this) {
                    if (read != generation) {
                        return;
                    }
                    resultSet = rs;
                }
                Map<String, String> columnTypes = null;
                while (rs.next()) {
                    if (columnTypes == null) {
                        columnTypes = columnTypes(rs);
                    }
                    SnapshotRow row = row(rs, columnTypes);
                    boolean wakeFetcher;
                    synchronized (this) {
                        if (read != generation) {
                            return;
                        }
                        wakeFetcher = buffer.size() + 1 == wakeAt;
                        buffer.add(FetchedRecord.snapshotRow(row));
                        fetched = row.key();
                        retries.progressed();
                    }
                    if (wakeFetcher) {
                        onData.run();
                    }
                    if (!awaitRoom(read)) {
                        return;
                    }
                }
            }
            synchronized (this) {
                if (read != generation) {
                    return;
                }
                resultSet = null;
                running = false;
                buffer.add(FetchedRecord.SNAPSHOT_DONE);
                ended = true;
            }
            onData.run();
        } catch (SpannerException e) {
            onReadFailed(read, e);
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                if (read != generation) {
                    return;
                }
                running = false;
                failure =
                        new IllegalStateException(
                                describe() + ": cannot convert a row: " + e.getMessage(), e);
            }
            onData.run();
        } finally {
            synchronized (this) {
                if (read == generation) {
                    resultSet = null;
                }
            }
        }
    }

    /** Type names of the columns in table order. */
    private Map<String, String> columnTypes(ResultSet rs) {
        Map<String, String> byName = new LinkedHashMap<>();
        for (int i = 0; i < readColumns.size(); i++) {
            byName.put(readColumns.get(i), SnapshotValues.typeName(rs.getColumnType(i)));
        }
        Map<String, String> out = new LinkedHashMap<>();
        split.columns().forEach(c -> out.put(c, byName.get(c)));
        return Collections.unmodifiableMap(out);
    }

    private SnapshotRow row(ResultSet rs, Map<String, String> columnTypes) {
        int keyCount = split.keyColumns().size();
        Map<String, Object> keys = new LinkedHashMap<>(keyCount * 2);
        Map<String, Object> values = new LinkedHashMap<>(readIndex.length * 2);
        for (int i = 0; i < readIndex.length; i++) {
            (isKey[i] ? keys : values)
                    .put(split.columns().get(i), SnapshotValues.value(rs, readIndex[i]));
        }
        return new SnapshotRow(SnapshotKey.of(rs, keyCount), keys, values, columnTypes);
    }

    private synchronized boolean awaitRoom(long read) {
        while (read == generation && buffer.size() >= config.bufferedRecordsPerPartition()) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return read == generation;
    }

    private void onReadFailed(long read, SpannerException e) {
        synchronized (this) {
            if (read != generation) {
                return;
            }
            resultSet = null;
            running = false;
            if (SpannerErrors.isTransient(e.getErrorCode())) {
                retries.failed(LOG, describe(), e.getErrorCode());
            } else if (SpannerErrors.isSnapshotTooOld(e.getErrorCode())) {
                // The split's timestamp is fixed: a restart reads at the same one.
                failure =
                        new NonRecoverableSourceException(
                                describe()
                                        + " failed: "
                                        + SpannerErrors.describe(e)
                                        + ". "
                                        + SpannerErrors.snapshotRetentionAdvice(
                                                split.snapshotMicros(), config),
                                SpannerErrors.forUsers(e));
            } else {
                failure =
                        SpannerErrors.failure(
                                describe() + " failed: " + SpannerErrors.explain(e, config), e);
            }
        }
        onData.run();
    }

    private String describe() {
        return "Snapshot of table "
                + split.table()
                + " in "
                + config.databaseName()
                + " (split "
                + split.splitId()
                + ")";
    }

    @Override
    public synchronized void retryIfDue() {
        if (started
                && !running
                && !ended
                && failure == null
                && retries.takeIfDue(System.nanoTime())) {
            start();
        }
    }

    @Override
    public synchronized RuntimeException failure() {
        return failure;
    }

    @Override
    public synchronized int drain(int max, Consumer<FetchedRecord> out) {
        int n = 0;
        while (n < max && !buffer.isEmpty()) {
            out.accept(buffer.poll());
            n++;
        }
        if (n > 0 && buffer.size() < config.bufferedRecordsPerPartition()) {
            notifyAll();
        }
        return n;
    }

    @Override
    public synchronized boolean finishedAndDrained() {
        return ended && buffer.isEmpty();
    }

    @Override
    public synchronized boolean hasBufferedRecords() {
        return buffer.size() >= wakeAt || (!buffer.isEmpty() && !running);
    }

    @Override
    public synchronized void close() {
        generation++;
        ended = true;
        running = false;
        notifyAll();
        if (resultSet != null) {
            ResultSet rs = resultSet;
            resultSet = null;
            rs.close();
        }
    }
}
