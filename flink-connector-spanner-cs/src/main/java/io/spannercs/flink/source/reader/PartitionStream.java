package io.spannercs.flink.source.reader;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.Options;
import com.google.cloud.spanner.ResultSet;
import com.google.cloud.spanner.SpannerException;
import com.google.cloud.spanner.Statement;
import io.spannercs.flink.source.config.ChangeStreamQuery;
import io.spannercs.flink.source.config.SpannerErrors;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.record.ChangeRecordDecoder;
import io.spannercs.flink.source.record.ChildPartitionsRecord;
import io.spannercs.flink.source.record.DataChangeRecord;
import io.spannercs.flink.source.record.HeartbeatRecord;
import io.spannercs.flink.source.record.PartitionEndRecord;
import io.spannercs.flink.source.record.PartitionEventRecord;
import io.spannercs.flink.source.record.RecordSequences;
import io.spannercs.flink.source.split.PartitionSplit;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads one partition: its query runs on a thread of the reader's query pool with the client's
 * blocking {@link ResultSet}, and puts records into a bounded buffer; a full buffer makes the query
 * thread wait, which is backpressure (the stream is not read, so Spanner stops sending). Query
 * windows are chained from the last position, transient errors are retried with backoff from that
 * position, and records at or before it are skipped, so each record reaches the buffer once.
 *
 * <p>Why not the client's AsyncResultSet: it also occupies one thread of the client's small async
 * pool per streaming query (a change stream query streams for its whole window, so the ninth
 * partition of a reader never got a thread), and it spins while its own buffer is full.
 *
 * <p>The fetcher thread drains the buffer; draining stops at a move-in until its barrier is
 * released.
 */
final class PartitionStream {
    private static final Logger LOG = LoggerFactory.getLogger(PartitionStream.class);
    private static final long MAX_BACKOFF_MILLIS = 10_000;

    private final PartitionSplit split;
    private final SpannerSourceConfig config;
    private final ChangeStreamQuery query;
    private final DatabaseClient client;
    private final Executor queryThreads;
    private final Runnable onData;
    private final ReaderSharedState shared;
    private final ArrayDeque<ChangeRecord> buffer = new ArrayDeque<>();

    // Position of the last record put into the buffer; queries restart from here.
    private long fetchedMicros;
    private String fetchedSequence;
    private long windowEndMicros;
    private ResultSet resultSet; // the running query's, to cancel it from another thread
    private boolean running; // a query task is running or submitted
    private long generation;
    private boolean started;
    private boolean ended; // the partition's last record (or the source's end) is buffered
    private boolean endDelivered;
    private RuntimeException failure;
    private int attempts;
    private long retryAtNanos;
    // Draining stops after a move-in until its barrier is released.
    private long blockedAtMicros;

    PartitionStream(
            PartitionSplit split,
            SpannerSourceConfig config,
            ChangeStreamQuery query,
            DatabaseClient client,
            Executor queryThreads,
            ReaderSharedState shared,
            Runnable onData) {
        this.split = split;
        this.config = config;
        this.query = query;
        this.client = client;
        this.queryThreads = queryThreads;
        this.shared = shared;
        this.onData = onData;
        this.fetchedMicros = split.positionMicros();
        this.fetchedSequence = split.positionSequence();
        this.blockedAtMicros = split.barrierMicros();
        this.ended = split.finished();
    }

    String token() {
        return split.token();
    }

    synchronized boolean started() {
        return started;
    }

    synchronized boolean blocked() {
        return blockedAtMicros != PartitionSplit.NO_BARRIER;
    }

    /** Starts (or restarts) the query from the fetched position. */
    synchronized void start() {
        started = true;
        if (ended || failure != null) {
            return;
        }
        long startMicros = fetchedSequence == null ? fetchedMicros + 1 : fetchedMicros;
        long window = config.queryWindow().toNanos() / 1000;
        windowEndMicros =
                config.endMicros() == SpannerSourceConfig.NO_END
                        ? saturatedAdd(startMicros, window)
                        : Math.min(config.endMicros(), saturatedAdd(startMicros, window));
        if (startMicros > windowEndMicros) {
            buffer.add(new HeartbeatRecord(windowEndMicros));
            ended = true;
            onData.run();
            return;
        }
        Statement statement =
                query.statement(
                        split.token(),
                        startMicros,
                        windowEndMicros,
                        config.heartbeatInterval().toMillis());
        Options.QueryOption[] options =
                config.rpcPriority() == null
                        ? new Options.QueryOption[0]
                        : new Options.QueryOption[] {
                            Options.priority(
                                    Options.RpcPriority.valueOf(config.rpcPriority().name()))
                        };
        LOG.debug(
                "Querying partition {} from {} to {}", split.token(), startMicros, windowEndMicros);
        long current = ++generation;
        running = true;
        queryThreads.execute(() -> runQuery(current, statement, options));
    }

    private static long saturatedAdd(long a, long b) {
        long r = a + b;
        return r < a ? Long.MAX_VALUE : r;
    }

    /** Runs one query window on a query thread, until it ends, fails or is superseded. */
    private void runQuery(long query, Statement statement, Options.QueryOption[] options) {
        try (ResultSet rs = client.singleUse().executeQuery(statement, options)) {
            synchronized (this) {
                if (query != generation) {
                    return; // closed before it started
                }
                resultSet = rs;
            }
            ChangeRecordDecoder decoder = null;
            while (rs.next()) {
                if (decoder == null) {
                    decoder = ChangeRecordDecoder.forColumnType(rs.getColumnType(0));
                }
                List<ChangeRecord> records = decoder.decode(rs);
                boolean wasEmpty;
                synchronized (this) {
                    if (query != generation) {
                        return; // superseded or closed
                    }
                    wasEmpty = buffer.isEmpty();
                    for (ChangeRecord r : records) {
                        accept(r);
                    }
                    attempts = 0;
                }
                // Only the first record needs to wake the fetcher: it drains until the buffer is
                // empty. Never under this stream's lock: the fetcher takes locks the other way.
                if (wasEmpty) {
                    onData.run();
                }
                if (!awaitRoom(query)) {
                    return;
                }
            }
            onQueryDone(query);
        } catch (SpannerException e) {
            onQueryFailed(query, e);
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                if (query != generation) {
                    return; // the failure of a cancelled query
                }
                LOG.error("{}: reading failed", describe(), e);
                failure =
                        new IllegalStateException(
                                describe() + ": cannot decode a change record: " + e.getMessage(),
                                e);
                running = false;
            }
            onData.run();
        } finally {
            synchronized (this) {
                if (resultSet != null && query == generation) {
                    resultSet = null;
                }
            }
        }
    }

    /**
     * Waits while the buffer is full: the stream is not read meanwhile, so gRPC flow control stops
     * Spanner from sending more.
     *
     * @return false if the query was superseded or closed while waiting
     */
    private synchronized boolean awaitRoom(long query) {
        while (query == generation && buffer.size() >= config.bufferedRecordsPerPartition()) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return query == generation;
    }

    /** Buffers a record unless it is at or before the fetched position (a re-read). */
    private void accept(ChangeRecord r) {
        if (ended) {
            return;
        }
        long t = r.timestampMicros();
        boolean heartbeat = r instanceof HeartbeatRecord;
        if (t < fetchedMicros
                || (t == fetchedMicros
                        && (fetchedSequence == null
                                || heartbeat
                                || RecordSequences.compare(r.recordSequence(), fetchedSequence)
                                        <= 0))) {
            return;
        }
        LOG.trace("Partition {} fetched {}", split.token(), r);
        buffer.add(r);
        fetchedMicros = t;
        fetchedSequence = heartbeat ? null : r.recordSequence();
        if (r instanceof DataChangeRecord) {
            shared.recordFetchLag(Math.max(0, System.currentTimeMillis() - t / 1000));
        }
        if (r instanceof PartitionEndRecord || (r instanceof ChildPartitionsRecord)) {
            ended = true;
        }
    }

    private void onQueryDone(long query) {
        LOG.debug("Query of partition {} completed (ended: {})", split.token(), ended);
        synchronized (this) {
            if (query != generation) {
                return;
            }
            resultSet = null;
            running = false;
            if (!ended) {
                // The window ran to its end: every record up to it has been returned.
                if (fetchedMicros < windowEndMicros) {
                    buffer.add(new HeartbeatRecord(windowEndMicros));
                    fetchedMicros = windowEndMicros;
                    fetchedSequence = null;
                }
                if (config.endMicros() != SpannerSourceConfig.NO_END
                        && windowEndMicros >= config.endMicros()) {
                    ended = true;
                } else {
                    start(); // next window, chained from the position
                }
            }
        }
        onData.run();
    }

    private void onQueryFailed(long query, SpannerException e) {
        synchronized (this) {
            if (query != generation) {
                return; // a cancelled query
            }
            resultSet = null;
            running = false;
            if (retryable(e.getErrorCode())) {
                attempts++;
                shared.countQueryRestart();
                long backoff = Math.min(MAX_BACKOFF_MILLIS, 100L << Math.min(attempts, 10));
                retryAtNanos = System.nanoTime() + backoff * 1_000_000L;
                LOG.warn(
                        "{} failed ({}), retrying in {} ms (attempt {})",
                        describe(),
                        e.getErrorCode(),
                        backoff,
                        attempts);
            } else {
                failure =
                        new IllegalStateException(
                                describe() + " failed: " + SpannerErrors.explain(e, config),
                                SpannerErrors.forUsers(e));
            }
        }
        onData.run();
    }

    private static boolean retryable(ErrorCode code) {
        switch (code) {
            case UNAVAILABLE:
            case DEADLINE_EXCEEDED:
            case ABORTED:
            case RESOURCE_EXHAUSTED:
            case INTERNAL:
            case CANCELLED:
                return true;
            default:
                return false;
        }
    }

    private String describe() {
        return "Change stream "
                + config.changeStream()
                + " of "
                + config.databaseName()
                + ", partition "
                + split.token();
    }

    /** Restarts a query whose retry time has come; called by the fetcher thread. */
    synchronized void retryIfDue() {
        if (started
                && !running
                && !ended
                && failure == null
                && retryAtNanos != 0
                && System.nanoTime() >= retryAtNanos) {
            retryAtNanos = 0;
            start();
        }
    }

    /** The failure that ends this partition's reading, or null. */
    synchronized RuntimeException failure() {
        return failure;
    }

    /**
     * Moves up to {@code max} records into {@code out}, stopping after a move-in whose barrier is
     * not released yet.
     */
    synchronized int drain(int max, java.util.function.Consumer<ChangeRecord> out) {
        if (blockedAtMicros != PartitionSplit.NO_BARRIER) {
            if (!shared.isReleased(split.token(), blockedAtMicros)) {
                return 0;
            }
            blockedAtMicros = PartitionSplit.NO_BARRIER;
        }
        int n = 0;
        while (n < max && !buffer.isEmpty()) {
            ChangeRecord r = buffer.poll();
            out.accept(r);
            n++;
            if (config.perKeyOrdering()
                    && r instanceof PartitionEventRecord e
                    && !e.moveInSources().isEmpty()
                    && !shared.isReleased(split.token(), e.timestampMicros())) {
                blockedAtMicros = e.timestampMicros();
                break;
            }
        }
        if (n > 0 && buffer.size() < config.bufferedRecordsPerPartition()) {
            notifyAll(); // room again for a query thread waiting in awaitRoom
        }
        return n;
    }

    /** Whether every record has been drained and the partition (or source window) is over. */
    synchronized boolean finishedAndDrained() {
        return ended && buffer.isEmpty();
    }

    synchronized boolean hasBufferedRecords() {
        return !buffer.isEmpty() && blockedAtMicros == PartitionSplit.NO_BARRIER;
    }

    synchronized void markEndDelivered() {
        endDelivered = true;
    }

    synchronized boolean endDelivered() {
        return endDelivered;
    }

    synchronized void close() {
        generation++; // whatever the running query still does is ignored
        ended = true;
        running = false;
        notifyAll();
        if (resultSet != null) {
            ResultSet rs = resultSet;
            resultSet = null;
            rs.close(); // cancels the stream, which ends the query thread's wait for rows
        }
    }
}
