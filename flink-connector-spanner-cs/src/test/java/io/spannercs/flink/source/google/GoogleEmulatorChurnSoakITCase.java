package io.spannercs.flink.source.google;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Spanner;
import io.spannercs.flink.format.ChangeEvent;
import io.spannercs.flink.format.ChangeEventDeserializer;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestartStrategyOptions;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An unbounded job on Google's Cloud Spanner emulator ({@code gateway_main}) while the emulator
 * churns its own partitions (it moves, splits and merges them about every 20 s, and ends each with
 * a heartbeat at T followed by the ChildPartitionsRecord at the same T): a writer commits about 20
 * transactions a second through the official client for a few minutes while a job with parallelism
 * 2 and checkpoints every 500 ms reads the stream with no end timestamp. The test waits until every
 * written change has arrived and 20 s longer (at least one more churn), then cancels the job.
 *
 * <p>It asserts that the job never failed (its restart strategy is {@code none}, so any failure
 * ends it and the test with the job's exception), that the output equals what was written exactly
 * once (identities from the client's commit timestamps, as {@link OrdersWriter} keeps them), and
 * that the emulator did churn: the changes arrived from at least two partitions per minute written.
 *
 * <p>The writing lasts {@value #DEFAULT_MINUTES} minute by default in {@code mvn verify} (about a
 * minute and a half in all); {@code -Dspannercs.google.soak.minutes=10} makes it write for 10
 * minutes, e.g. {@code mvn -B -o -pl flink-connector-spanner-cs -am test
 * -Dtest=GoogleEmulatorChurnSoakITCase -Dsurefire.failIfNoSpecifiedTests=false
 * -Dspannercs.google.soak.minutes=10}.
 *
 * <p>After the last write the test waits up to half the minutes written (at least 2 minutes) for
 * the changes to arrive: Google's emulator itself delivers change records later the more it holds
 * (measured with the plain client, no Flink, at this write rate on a busy 2-core machine: 0.2 s
 * behind after 30 s, 10 s after 2 minutes, 30 to 40 s after 3 to 5 minutes). The test's own
 * deadlines end it at most 1.5 times the minutes written plus 3 minutes after it started; the
 * timeout below is a backstop for runs of up to 25 minutes. Skips, saying why, where the gateway is
 * not installed.
 */
@Timeout(value = 45, unit = TimeUnit.MINUTES)
class GoogleEmulatorChurnSoakITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    /** System property: minutes of live writes. */
    static final String MINUTES_PROPERTY = "spannercs.google.soak.minutes";

    static final int DEFAULT_MINUTES = 1;

    private static final String PROJECT = GoogleGateway.PROJECT;
    private static final DatabaseId DB = DatabaseId.of(PROJECT, "soak-instance", "soak-db");
    private static final int TRANSACTIONS_PER_SECOND = 20;
    private static final Duration QUIET_PERIOD = Duration.ofSeconds(20);

    @Test
    void unboundedJobDeliversEveryChangeOnceWhileTheEmulatorChurns() throws Exception {
        int minutes = Integer.getInteger(MINUTES_PROPERTY, DEFAULT_MINUTES);
        assertThat(minutes).as(MINUTES_PROPERTY).isPositive();
        long began = System.nanoTime();
        try (GoogleGateway google = GoogleGateway.startOrSkip(getClass())) {
            Spanner spanner = google.spanner();
            google.createDatabase(spanner, DB, OrdersWriter.DDL);
            DatabaseClient client = spanner.getDatabaseClient(DB);
            Instant start = Instant.now();

            Configuration noRestarts = new Configuration();
            noRestarts.set(RestartStrategyOptions.RESTART_STRATEGY, "none");
            StreamExecutionEnvironment env =
                    StreamExecutionEnvironment.getExecutionEnvironment(noRestarts);
            env.setParallelism(2);
            env.enableCheckpointing(500);
            SpannerChangeStreamSource<ChangeEvent> source =
                    SpannerChangeStreamSource.<ChangeEvent>builder()
                            .setProjectId(PROJECT)
                            .setInstanceId(DB.getInstanceId().getInstance())
                            .setDatabaseId(DB.getDatabase())
                            .setChangeStream("everything")
                            .setStartTimestamp(start) // and no end: an unbounded read
                            .setHeartbeatInterval(Duration.ofSeconds(1))
                            .setEmulatorHost(google.hostPort())
                            .setDeserializer(ChangeEventDeserializer.changeEvents())
                            .build();

            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .executeAndCollect("unbounded read on Google's emulator")) {
                Collector collector = new Collector(it);
                collector.start();
                try {
                    check(collector, client, minutes, began);
                } finally {
                    collector.closing = true; // closing the iterator cancels the job
                }
            }
        }
    }

    private static void check(Collector collector, DatabaseClient client, int minutes, long began)
            throws InterruptedException {
        OrdersWriter writer = new OrdersWriter(client, 43);
        writeFor(writer, Duration.ofMinutes(minutes), collector);
        List<String> written = writer.written();
        long writtenAt = System.nanoTime();

        Map<String, Integer> expected = ExactlyOnce.counts(written);
        Duration arrivalTimeout = Duration.ofSeconds(Math.max(120, minutes * 30L));
        long deadline = System.nanoTime() + arrivalTimeout.toNanos();
        while (!collector.hasEveryOf(expected) && System.nanoTime() < deadline) {
            collector.throwIfFailed();
            Thread.sleep(200);
        }
        collector.throwIfFailed();
        long arrivedAfterMillis = (System.nanoTime() - writtenAt) / 1_000_000;
        Thread.sleep(QUIET_PERIOD.toMillis()); // time for a duplicate to show
        collector.throwIfFailed();

        List<String> actual = collector.identities();
        Set<String> partitions = collector.partitions();
        System.out.printf(
                "GoogleEmulatorChurnSoakITCase: %d min of writes, %d changes written, %d"
                        + " delivered (waited %d ms after the last write, then %d s more), from"
                        + " %d partitions; %d s in all%n",
                minutes,
                written.size(),
                actual.size(),
                arrivedAfterMillis,
                QUIET_PERIOD.toSeconds(),
                partitions.size(),
                (System.nanoTime() - began) / 1_000_000_000L);

        assertThat(written)
                .as("changes written")
                .hasSizeGreaterThan(minutes * 60 * TRANSACTIONS_PER_SECOND);
        ExactlyOnce.assertExactlyOnce(actual, written);
        assertThat(partitions)
                .as(
                        "partitions the changes came from (Google's emulator churns about"
                                + " every 20 s)")
                .hasSizeGreaterThanOrEqualTo(2 * minutes);
    }

    /**
     * Commits about {@value #TRANSACTIONS_PER_SECOND} transactions a second for {@code time}, and
     * stops early if the job failed.
     */
    private static void writeFor(OrdersWriter writer, Duration time, Collector collector)
            throws InterruptedException {
        long begin = System.nanoTime();
        long end = begin + time.toNanos();
        long interval = 1_000_000_000L / TRANSACTIONS_PER_SECOND;
        for (long i = 0; ; i++) {
            long due = begin + i * interval;
            if (due >= end) {
                return;
            }
            long wait = due - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            writer.writeOne();
            collector.throwIfFailed();
        }
    }

    /** Reads the job's output on its own thread, keeping identities and partition tokens. */
    private static final class Collector extends Thread {
        private final CloseableIterator<ChangeEvent> it;
        private final List<String> identities = Collections.synchronizedList(new ArrayList<>());
        private final Map<String, Integer> counts = new ConcurrentHashMap<>();
        private final Set<String> partitions = ConcurrentHashMap.newKeySet();
        private volatile Throwable failure;
        private volatile boolean closing;

        Collector(CloseableIterator<ChangeEvent> it) {
            super("google-soak-collector");
            setDaemon(true);
            this.it = it;
        }

        @Override
        public void run() {
            try {
                while (it.hasNext()) {
                    ChangeEvent e = it.next();
                    String id = OrdersWriter.identity(e);
                    identities.add(id);
                    counts.merge(id, 1, Integer::sum);
                    partitions.add(e.getPartitionToken());
                }
            } catch (Throwable t) {
                if (!closing) {
                    failure = t;
                }
            }
        }

        boolean hasEveryOf(Map<String, Integer> expected) {
            if (counts.size() < expected.size()) {
                return false;
            }
            for (String k : expected.keySet()) {
                if (!counts.containsKey(k)) {
                    return false;
                }
            }
            return true;
        }

        void throwIfFailed() {
            if (failure != null) {
                throw new AssertionError(
                        "The job failed (its restart strategy is none), after "
                                + identities.size()
                                + " changes",
                        failure);
            }
        }

        List<String> identities() {
            synchronized (identities) {
                return new ArrayList<>(identities);
            }
        }

        Set<String> partitions() {
            return Set.copyOf(partitions);
        }
    }
}
