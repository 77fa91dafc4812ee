package io.spannercs.flink.source.reader;

import io.spannercs.flink.source.split.SpannerSplit;
import java.util.function.Supplier;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.fetcher.SingleThreadFetcherManager;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;

/**
 * Keeps the reader's one fetcher (and its split reader) from the first split until the enumerator
 * has no more splits, instead of shutting it down whenever it has none.
 *
 * <p>A reader of a churning stream often has no split for a moment: a legacy parent has ended and
 * its children are not assigned yet. Flink then shuts the idle fetcher down and starts a new one
 * (with a new index) for the next split. Flink 2.3.0's element queue can lose the wake-up of a
 * fetcher waiting to hand over records when an earlier fetcher was woken from that wait (an
 * assignment wakes it) and then replaced (FLINK-37663, fixed after 2.3.0): the fetcher then waits
 * forever, and the job stalls or lingers at its end. With one fetcher for the reader's life every
 * wake-up reaches the waiting fetcher, and no thread or query is set up again per generation.
 */
@Internal
final class ChangeStreamFetcherManager
        extends SingleThreadFetcherManager<FetchedRecord, SpannerSplit> {
    private volatile boolean noMoreSplits;

    ChangeStreamFetcherManager(
            Supplier<SplitReader<FetchedRecord, SpannerSplit>> splitReaders,
            Configuration configuration) {
        super(splitReaders, configuration);
    }

    /** The enumerator will assign no more splits: an idle fetcher may end. */
    void noMoreSplits() {
        noMoreSplits = true;
    }

    @Override
    public boolean maybeShutdownFinishedFetchers() {
        return noMoreSplits && super.maybeShutdownFinishedFetchers();
    }
}
