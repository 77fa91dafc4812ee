package io.spannercs.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.flink.source.split.PartitionSplit;
import io.spannercs.flink.source.split.SpannerSplit;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.connector.base.source.reader.RecordsBySplits;
import org.apache.flink.connector.base.source.reader.RecordsWithSplitIds;
import org.apache.flink.connector.base.source.reader.splitreader.SplitReader;
import org.apache.flink.connector.base.source.reader.splitreader.SplitsChange;
import org.junit.jupiter.api.Test;

/**
 * The reader keeps one fetcher while partitions come and go: Flink 2.3.0 would shut an idle one
 * down and start another for the next split, the pattern under which its element queue can lose a
 * fetcher's wake-up (FLINK-37663) and stall the source.
 */
class ChangeStreamFetcherManagerTest {
    private final AtomicInteger splitReaders = new AtomicInteger();

    /** Finishes every split it is given at its next fetch. */
    private final class FinishingSplitReader implements SplitReader<FetchedRecord, SpannerSplit> {
        private final Queue<String> added = new ArrayDeque<>();

        FinishingSplitReader() {
            splitReaders.incrementAndGet();
        }

        @Override
        public synchronized RecordsWithSplitIds<FetchedRecord> fetch() {
            RecordsBySplits.Builder<FetchedRecord> out = new RecordsBySplits.Builder<>();
            for (String id = added.poll(); id != null; id = added.poll()) {
                out.addFinishedSplit(id);
            }
            return out.build();
        }

        @Override
        public synchronized void handleSplitsChanges(SplitsChange<SpannerSplit> change) {
            change.splits().forEach(s -> added.add(s.splitId()));
        }

        @Override
        public void wakeUp() {}

        @Override
        public void close() {}
    }

    private static PartitionSplit split(String token) {
        return PartitionSplit.fresh(token, 100, 200, List.of());
    }

    /** Takes what the fetcher hands over until the split is reported finished. */
    private static void awaitFinished(ChangeStreamFetcherManager manager, String token)
            throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        while (System.nanoTime() < deadline) {
            RecordsWithSplitIds<FetchedRecord> records = manager.getQueue().poll();
            if (records != null && records.finishedSplits().contains(token)) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("split " + token + " was not finished");
    }

    @Test
    void keepsItsFetcherBetweenSplitsUntilThereAreNoMore() throws Exception {
        ChangeStreamFetcherManager manager =
                new ChangeStreamFetcherManager(FinishingSplitReader::new, new Configuration());
        try {
            manager.addSplits(List.of(split("a")));
            awaitFinished(manager, "a");

            assertThat(manager.maybeShutdownFinishedFetchers()).isFalse();
            assertThat(manager.getNumAliveFetchers()).isEqualTo(1);

            manager.addSplits(List.of(split("b")));
            awaitFinished(manager, "b");
            assertThat(splitReaders).as("split readers made").hasValue(1);

            manager.noMoreSplits();
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            boolean shutDown = false;
            while (!shutDown && System.nanoTime() < deadline) {
                shutDown = manager.maybeShutdownFinishedFetchers();
                Thread.sleep(5);
            }
            assertThat(shutDown).as("the idle fetcher ends once no more splits come").isTrue();
        } finally {
            manager.close(10_000);
        }
    }
}
