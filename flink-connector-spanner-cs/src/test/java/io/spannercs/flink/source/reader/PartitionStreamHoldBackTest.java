package io.spannercs.flink.source.reader;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.Dialect;
import com.google.cloud.spanner.Spanner;
import com.google.protobuf.ListValue;
import com.google.protobuf.Value;
import com.google.spanner.v1.Mutation;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.flink.source.ChangeFilter;
import io.spannercs.flink.source.TestConfigs;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.config.SpannerSourceConfig.PartitionMode;
import io.spannercs.flink.source.record.DataChangeRecord;
import io.spannercs.flink.source.spanner.ChangeStreamQuery;
import io.spannercs.flink.source.spanner.ClientReads;
import io.spannercs.flink.source.spanner.SpannerClients;
import io.spannercs.flink.source.split.PartitionSplit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A partition read ahead buffers only a few records until it is taken over (another reader may be
 * given it), then reads on to its end: every committed change once, read back through the official
 * client from the emulator.
 */
class PartitionStreamHoldBackTest {
    private static final int CHANGES = 300;
    private static final int HELD_BACK = 10;
    private static final int BUFFERED = 1000;

    private SpannerEmulator emulator;
    private Spanner spanner;
    private ExecutorService queryThreads;
    private final List<PartitionStream> streams = new ArrayList<>();
    private final List<Thread> queryThreadList = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final Semaphore data = new Semaphore(0);
    private SpannerSourceConfig config;
    private String token;
    private long startMicros;

    @BeforeEach
    void commitChanges() {
        emulator =
                SpannerEmulator.builder()
                        .ddl(
                                "CREATE TABLE T (K INT64 NOT NULL) PRIMARY KEY (K);\n"
                                        + "CREATE CHANGE STREAM cs FOR ALL OPTIONS"
                                        + " (partition_mode = 'IMMUTABLE_KEY_RANGE');\n")
                        .initialPartitions(1) // every change in the partition read
                        .start();
        token = emulator.database().changeStream("cs").liveTokens().get(0);
        long first = Long.MAX_VALUE;
        long last = 0;
        for (long k = 0; k < CHANGES; k++) {
            CommittedTransaction t = emulator.database().commit(List.of(insert(k)), "");
            first = Math.min(first, t.commitMicros());
            last = Math.max(last, t.commitMicros());
        }
        startMicros = first;
        config = config(last);
        spanner = SpannerClients.create(config);
        queryThreads =
                Executors.newCachedThreadPool(
                        r -> {
                            Thread t = new Thread(r, "hold-back-test-query");
                            t.setDaemon(true);
                            queryThreadList.add(t);
                            return t;
                        });
    }

    @AfterEach
    void stop() throws InterruptedException {
        streams.forEach(PartitionStream::close);
        queryThreads.shutdownNow();
        queryThreads.awaitTermination(10, TimeUnit.SECONDS);
        SpannerClients.close(spanner, true);
        emulator.close();
    }

    @Test
    void aHeldBackStreamBuffersFewRecordsUntilTakenOverThenReadsEverything()
            throws InterruptedException {
        PartitionStream stream = stream();
        stream.holdBack(HELD_BACK);
        stream.start();
        awaitQueryWaitingForRoom(stream);

        List<FetchedRecord> fetched = new ArrayList<>();
        stream.drain(Integer.MAX_VALUE, fetched::add);
        // A row may carry several records: the limit is checked after each row.
        assertThat(fetched)
                .as("buffered before the take-over")
                .hasSizeBetween(HELD_BACK, 2 * HELD_BACK);

        stream.takeOver();
        readToTheEnd(stream, fetched);
        assertThat(dataRecords(fetched)).as("every change once").hasSize(CHANGES);
    }

    /** Shows the test above can fail: without the hold-back the stream buffers on. */
    @Test
    void withoutTheHoldBackTheStreamBuffersFarMore() throws InterruptedException {
        PartitionStream stream = stream();
        stream.start();
        List<FetchedRecord> fetched = new ArrayList<>();
        // Without the hold-back this comes within a moment; with it, never (the limit fails it).
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (fetched.size() <= 3 * HELD_BACK && System.nanoTime() < deadline) {
            assertThat(stream.failure()).isNull();
            if (stream.drain(Integer.MAX_VALUE, fetched::add) == 0) {
                data.tryAcquire(100, TimeUnit.MILLISECONDS);
            }
        }
        assertThat(fetched.size()).isGreaterThan(3 * HELD_BACK);
    }

    private PartitionStream stream() {
        PartitionStream stream =
                new PartitionStream(
                        PartitionSplit.fresh(token, startMicros, config.endMicros(), List.of()),
                        config,
                        new ChangeStreamQuery(
                                "cs",
                                Dialect.GOOGLE_STANDARD_SQL,
                                PartitionMode.IMMUTABLE_KEY_RANGE),
                        new ClientReads(SpannerClients.databaseClient(spanner, config), config),
                        queryThreads,
                        new ReaderSharedState(),
                        new ChangeEvents(ChangeFilter.ALL, config.unknownValueHandling()),
                        data::release);
        streams.add(stream);
        return stream;
    }

    /**
     * Waits until the stream's query thread waits on the stream for room in its buffer: it then
     * reads nothing more until records are drained or the stream is taken over, so what the buffer
     * holds is what it took before it stopped (no time to guess at).
     */
    private void awaitQueryWaitingForRoom(PartitionStream stream) throws InterruptedException {
        assertThat(data.tryAcquire(30, TimeUnit.SECONDS)).as("first records").isTrue();
        java.lang.management.ThreadMXBean threads =
                java.lang.management.ManagementFactory.getThreadMXBean();
        int monitor = System.identityHashCode(stream);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (queryThreadList.stream()
                .noneMatch(
                        t -> {
                            java.lang.management.ThreadInfo info = threads.getThreadInfo(t.getId());
                            return info != null
                                    && info.getThreadState() == Thread.State.WAITING
                                    && info.getLockInfo() != null
                                    && info.getLockInfo().getIdentityHashCode() == monitor;
                        })) {
            assertThat(stream.failure()).isNull();
            assertThat(System.nanoTime())
                    .as("the query thread waits for room in the stream's buffer")
                    .isLessThan(deadline);
            Thread.sleep(10); // polls the condition
        }
        assertThat(stream.failure()).isNull();
    }

    private void readToTheEnd(PartitionStream stream, List<FetchedRecord> fetched)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!stream.finishedAndDrained()) {
            assertThat(System.nanoTime()).as("read to the end in time").isLessThan(deadline);
            assertThat(stream.failure()).isNull();
            if (stream.drain(Integer.MAX_VALUE, fetched::add) == 0) {
                data.tryAcquire(100, TimeUnit.MILLISECONDS);
            }
        }
    }

    private static List<DataChangeRecord> dataRecords(List<FetchedRecord> fetched) {
        return fetched.stream()
                .filter(f -> f.record() instanceof DataChangeRecord)
                .map(f -> (DataChangeRecord) f.record())
                .toList();
    }

    private SpannerSourceConfig config(long endMicros) {
        return TestConfigs.config(
                TestConfigs.onEmulator(emulator, "cs", 0, endMicros)
                        .setHeartbeatInterval(Duration.ofMillis(100))
                        .setBufferedRecordsPerPartition(BUFFERED)
                        .setProgressInterval(Duration.ofMillis(100))
                        .setPartitionMode(PartitionMode.IMMUTABLE_KEY_RANGE)
                        .setDialect(Dialect.GOOGLE_STANDARD_SQL));
    }

    private static Mutation insert(long k) {
        return Mutation.newBuilder()
                .setInsert(
                        Mutation.Write.newBuilder()
                                .setTable("T")
                                .addColumns("K")
                                .addValues(
                                        ListValue.newBuilder()
                                                .addValues(
                                                        Value.newBuilder()
                                                                .setStringValue(Long.toString(k)))))
                .build();
    }
}
