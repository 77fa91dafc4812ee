package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.spanner.RowCursor;
import io.spannercs.flink.source.spanner.SpannerReadException;
import java.util.ArrayDeque;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;

/**
 * The life of a split's query, shared by partition and snapshot reads: a query runs on a thread of
 * the reader's query pool and puts what it reads into a bounded buffer; a full buffer makes the
 * query thread wait, which is backpressure (the stream is not read, so gRPC flow control stops
 * Spanner from sending more). Each run has a generation: a run that was superseded or closed
 * changes nothing any more. A transient failure schedules a retry ({@link RetrySchedule}); any
 * other failure ends the reading. The fetcher thread drains the buffer.
 *
 * <p>Locking: this object's monitor guards the fields; {@code onData} (which wakes the fetcher) is
 * never called under it, as the fetcher takes locks the other way.
 *
 * @param <R> what one row of the query becomes
 */
abstract class QueryStream<R> implements SplitStream {
    protected final SpannerSourceConfig config;
    protected final Runnable onData;
    protected final ArrayDeque<FetchedRecord> buffer = new ArrayDeque<>();
    protected final RetrySchedule retries = new RetrySchedule();
    private final Executor queryThreads;

    private RowCursor<R> cursor; // the running query's, to cancel it from another thread
    protected boolean running; // a query task is running or submitted
    protected long generation;
    protected boolean started;
    protected boolean ended; // no more queries: the split is done, or the stream closed
    protected RuntimeException failure;

    QueryStream(SpannerSourceConfig config, Executor queryThreads, Runnable onData) {
        this.config = config;
        this.queryThreads = queryThreads;
        this.onData = onData;
    }

    /** What the stream reads, for messages: "Change stream cs of db, partition p". */
    protected abstract String describe();

    protected abstract Logger log();

    /**
     * Takes one row of run {@code run} (on the query thread, not under the lock).
     *
     * @return false if the run was superseded or closed: it stops
     */
    protected abstract boolean onRow(long run, R row);

    /** The run returned every row; under the lock, {@code run} still current. */
    protected abstract void onRunDone(long run);

    /** Spanner failed the run; under the lock, before a retry is scheduled or the failure set. */
    protected void onRunFailed(SpannerReadException e) {}

    /** The failure that ends the reading, for a failure no retry can help. */
    protected RuntimeException failureOf(SpannerReadException e) {
        return e.failure(describe(), config);
    }

    /** What went wrong when a row cannot be taken: "cannot decode a change record". */
    protected abstract String rowFailure();

    /** Records the buffer may hold before the query thread waits. */
    protected int bufferLimit() {
        return config.bufferedRecordsPerPartition();
    }

    /** Starts a new run of the query on a query thread; under the lock. */
    protected final void launch(Supplier<RowCursor<R>> query) {
        long run = ++generation;
        running = true;
        queryThreads.execute(() -> run(run, query));
    }

    private void run(long run, Supplier<RowCursor<R>> query) {
        try (RowCursor<R> rows = query.get()) {
            synchronized (this) {
                if (run != generation) {
                    return; // closed before it started
                }
                cursor = rows;
            }
            R row;
            while ((row = rows.next()) != null) {
                if (!onRow(run, row) || !awaitRoom(run)) {
                    return;
                }
            }
            synchronized (this) {
                if (run != generation) {
                    return;
                }
                cursor = null;
                running = false;
                onRunDone(run);
            }
            onData.run();
        } catch (SpannerReadException e) {
            onFailed(run, e);
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                if (run != generation) {
                    return; // the failure of a cancelled query
                }
                log().error("{}: reading failed", describe(), e);
                failure =
                        new IllegalStateException(
                                describe() + ": " + rowFailure() + ": " + e.getMessage(), e);
                running = false;
            }
            onData.run();
        } finally {
            synchronized (this) {
                if (run == generation) {
                    cursor = null;
                }
            }
        }
    }

    private void onFailed(long run, SpannerReadException e) {
        synchronized (this) {
            if (run != generation) {
                return; // a cancelled query
            }
            cursor = null;
            running = false;
            onRunFailed(e);
            if (e.isTransient()) {
                retries.failed(log(), describe(), e.code());
            } else {
                failure = failureOf(e);
            }
        }
        onData.run();
    }

    /**
     * Waits while the buffer is full.
     *
     * @return false if the run was superseded or closed while waiting
     */
    private synchronized boolean awaitRoom(long run) {
        while (run == generation && buffer.size() >= bufferLimit()) {
            try {
                wait();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return run == generation;
    }

    @Override
    public synchronized boolean started() {
        return started;
    }

    /** Restarts a failed query whose retry time has come; called by the fetcher thread. */
    @Override
    public synchronized void retryIfDue() {
        if (retryDue(System.nanoTime())) {
            start();
        }
    }

    /** Whether a retry of a failed (or waiting) query is due now; if so, it is taken. */
    protected final synchronized boolean retryDue(long nowNanos) {
        return started && !running && !ended && failure == null && retries.takeIfDue(nowNanos);
    }

    @Override
    public synchronized RuntimeException failure() {
        return failure;
    }

    /** Whether draining may go on now (a partition waits at an unreleased barrier). */
    protected boolean mayDrain() {
        return true;
    }

    /** Whether draining stops after this element (a barrier that is not released yet). */
    protected boolean stopsDrainAfter(FetchedRecord r) {
        return false;
    }

    @Override
    public synchronized int drain(int max, Consumer<FetchedRecord> out) {
        if (!mayDrain()) {
            return 0;
        }
        int n = 0;
        while (n < max && !buffer.isEmpty()) {
            FetchedRecord r = buffer.poll();
            out.accept(r);
            n++;
            if (stopsDrainAfter(r)) {
                break;
            }
        }
        if (n > 0 && buffer.size() < config.bufferedRecordsPerPartition()) {
            notifyAll(); // room again for a query thread waiting in awaitRoom
        }
        return n;
    }

    @Override
    public synchronized boolean finishedAndDrained() {
        return ended && buffer.isEmpty();
    }

    @Override
    public synchronized void close() {
        generation++; // whatever the running query still does is ignored
        ended = true;
        running = false;
        notifyAll();
        if (cursor != null) {
            RowCursor<R> rows = cursor;
            cursor = null;
            rows.close(); // cancels the stream, which ends the query thread's wait for rows
        }
    }
}
