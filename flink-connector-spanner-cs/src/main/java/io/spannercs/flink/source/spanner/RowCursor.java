package io.spannercs.flink.source.spanner;

import org.apache.flink.annotation.Internal;

/**
 * The rows of one running query or read, taken one by one on the thread that runs it. Spanner's
 * errors come out of it as {@link SpannerReadException}.
 *
 * @param <T> what one row becomes
 */
@Internal
public interface RowCursor<T> extends AutoCloseable {

    /**
     * The next row, waiting for it; null once the query has returned every row.
     *
     * @throws SpannerReadException when Spanner fails the query (or it was cancelled by {@link
     *     #close})
     */
    T next();

    /**
     * Ends the query; from another thread, this cancels it and wakes the thread in {@link #next}.
     */
    @Override
    void close();
}
