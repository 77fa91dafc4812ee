package io.spannercs.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.ErrorCode;
import com.google.cloud.spanner.SpannerExceptionFactory;
import io.spannercs.flink.source.TestConfigs;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.config.SpannerSourceConfig.PartitionMode;
import io.spannercs.flink.source.record.ChangeRecord;
import io.spannercs.flink.source.spanner.ChangeStreamQuery;
import io.spannercs.flink.source.spanner.RowCursor;
import io.spannercs.flink.source.spanner.SnapshotRow;
import io.spannercs.flink.source.spanner.SpannerReadException;
import io.spannercs.flink.source.spanner.SpannerReads;
import io.spannercs.flink.source.split.SnapshotKey;
import io.spannercs.flink.source.split.SnapshotSplit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A snapshot split's read against fake {@link SpannerReads}: the query-stream lifecycle (a bounded
 * buffer, a transient failure retried after the last row fetched, a permanent one ending the read)
 * without Spanner.
 */
class SnapshotStreamTest {
    private static final int ROWS = 10;
    private static final int BUFFERED = 3; // fewer than the rows: the read waits for room

    private final ExecutorService queryThreads = Executors.newSingleThreadExecutor();
    private final Semaphore data = new Semaphore(0);

    @AfterEach
    void stop() {
        queryThreads.shutdownNow();
    }

    @Test
    void aTransientFailureIsRetriedAfterTheLastRowFetchedAndEveryRowComesOnce() {
        FakeReads reads = new FakeReads(ErrorCode.UNAVAILABLE, 5);
        SnapshotStream stream =
                new SnapshotStream(split(), config(), reads, queryThreads, data::release);

        List<FetchedRecord> fetched = readToTheEnd(stream);

        assertThat(stream.failure()).isNull();
        assertThat(keysOf(fetched))
                .containsExactly("0", "1", "2", "3", "4", "5", "6", "7", "8", "9");
        assertThat(fetched.get(fetched.size() - 1)).isSameAs(FetchedRecord.SNAPSHOT_DONE);
        assertThat(reads.afters).hasSize(2);
        assertThat(reads.afters.get(0)).isNull();
        assertThat(reads.afters.get(1)).isSameAs(reads.rows.get(4).key());
    }

    @Test
    void aPermanentFailureEndsTheReadNamingTheSnapshot() {
        FakeReads reads = new FakeReads(ErrorCode.PERMISSION_DENIED, 2);
        SnapshotStream stream =
                new SnapshotStream(split(), config(), reads, queryThreads, data::release);

        List<FetchedRecord> fetched = readToTheEnd(stream);

        assertThat(stream.failure())
                .isNotNull()
                .hasMessageContaining("Snapshot of table T")
                .hasMessageContaining("PERMISSION_DENIED");
        // The fetcher stops at the failure, whatever is still buffered; what the read had put
        // there before it (and nothing after) is rows 0 and 1.
        stream.drain(Integer.MAX_VALUE, fetched::add);
        assertThat(keysOf(fetched)).containsExactly("0", "1");
        assertThat(reads.afters).hasSize(1);
    }

    /** Drains like the fetcher: until the split is done or failed. */
    private List<FetchedRecord> readToTheEnd(SnapshotStream stream) {
        List<FetchedRecord> fetched = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        stream.start();
        while (!stream.finishedAndDrained() && stream.failure() == null) {
            assertThat(System.nanoTime()).as("the read ends").isLessThan(deadline);
            try {
                data.tryAcquire(20, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            stream.retryIfDue();
            stream.drain(Integer.MAX_VALUE, fetched::add);
        }
        return fetched;
    }

    private static List<String> keysOf(List<FetchedRecord> fetched) {
        List<String> keys = new ArrayList<>();
        for (FetchedRecord r : fetched) {
            if (r.kind() == FetchedRecord.Kind.SNAPSHOT_ROW) {
                keys.add(String.valueOf(r.row().keys().get("K")));
            }
        }
        return keys;
    }

    /** Rows 0 to 9; the first read fails with {@code code} after {@code failAfter} rows. */
    private static final class FakeReads implements SpannerReads {
        final List<SnapshotRow> rows = new ArrayList<>();
        final List<SnapshotKey> afters = Collections.synchronizedList(new ArrayList<>());
        private final ErrorCode code;
        private final int failAfter;

        FakeReads(ErrorCode code, int failAfter) {
            this.code = code;
            this.failAfter = failAfter;
            for (int i = 0; i < ROWS; i++) {
                rows.add(
                        new SnapshotRow(
                                new SnapshotKey(List.of("INT64"), List.of(Integer.toString(i))),
                                Map.of("K", Integer.toString(i)),
                                Map.of("V", "v" + i),
                                Map.of("K", "INT64", "V", "STRING")));
            }
        }

        @Override
        public RowCursor<SnapshotRow> snapshotRange(SnapshotSplit split, SnapshotKey after) {
            afters.add(after);
            boolean first = afters.size() == 1;
            int from = 0;
            for (int i = 0; i < rows.size(); i++) {
                if (rows.get(i).key() == after) {
                    from = i + 1;
                }
            }
            int start = from;
            return new RowCursor<>() {
                int next = start;

                @Override
                public SnapshotRow next() {
                    if (first && next == failAfter) {
                        throw new SpannerReadException(
                                SpannerExceptionFactory.newSpannerException(code, "injected"));
                    }
                    return next < rows.size() ? rows.get(next++) : null;
                }

                @Override
                public void close() {}
            };
        }

        @Override
        public ChangeStreamQuery detectQuery() {
            throw new UnsupportedOperationException();
        }

        @Override
        public RowCursor<List<ChangeRecord>> partitionWindow(
                ChangeStreamQuery query, String token, long startMicros, long endMicros) {
            throw new UnsupportedOperationException();
        }
    }

    static SnapshotSplit split() {
        return new SnapshotSplit(
                "snapshot/T/0",
                "T",
                List.of("K", "V"),
                List.of("K"),
                1_000_000L,
                null,
                null,
                null,
                0,
                List.of(),
                false);
    }

    static SpannerSourceConfig config() {
        return TestConfigs.config(
                TestConfigs.builder("cs", 0, SpannerSourceConfig.NO_END)
                        .setHeartbeatInterval(Duration.ofMillis(100))
                        .setEmulatorHost("127.0.0.1:1")
                        .setBufferedRecordsPerPartition(BUFFERED)
                        .setProgressInterval(Duration.ofMillis(100))
                        .setPartitionMode(PartitionMode.IMMUTABLE_KEY_RANGE)
                        .setDialect(Dialect.GOOGLE_STANDARD_SQL));
    }
}
