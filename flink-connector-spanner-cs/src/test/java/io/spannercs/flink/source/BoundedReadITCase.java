package io.spannercs.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.flink.format.ChangeEvent;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The thinnest end-to-end path: commits written with the official client while partitions churn,
 * then a bounded job reading the change stream; the job's output must equal the emulator's ground
 * truth, each change once. (Order is checked where it is promised, at a chained consumer: see
 * PerKeyOrderITCase; this job's collect sink sits behind a shuffle.)
 */
@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class BoundedReadITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Customer STRING(MAX), Amount NUMERIC,"
                    + " UpdatedAt TIMESTAMP) PRIMARY KEY (OrderId);\n"
                    + "CREATE CHANGE STREAM mutable_cs FOR ALL OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n"
                    + "CREATE CHANGE STREAM legacy_cs FOR ALL;\n";

    /** Also without per-key order: no barriers, children read as soon as they are announced. */
    @ParameterizedTest
    @CsvSource({"mutable_cs, true", "legacy_cs, true", "mutable_cs, false", "legacy_cs, false"})
    void readsEveryChangeOnce(String stream, boolean perKeyOrdering) throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .ddl(DDL)
                                .initialPartitions(2)
                                .maxPartitions(6)
                                .start();
                Spanner spanner = client(emulator)) {
            DatabaseClient db =
                    spanner.getDatabaseClient(
                            DatabaseId.of(
                                    emulator.projectId(),
                                    emulator.instanceId(),
                                    emulator.databaseId()));
            Instant start = Instant.now();
            Random random = new Random(3);
            for (int i = 0; i < 150; i++) {
                long id = random.nextInt(30);
                Mutation m =
                        random.nextInt(6) == 0
                                ? Mutation.delete("Orders", Key.of(id))
                                : Mutation.newInsertOrUpdateBuilder("Orders")
                                        .set("OrderId")
                                        .to(id)
                                        .set("Customer")
                                        .to("c" + random.nextInt(5))
                                        .set("Amount")
                                        .to(
                                                new java.math.BigDecimal(random.nextInt(1000))
                                                        .movePointLeft(2))
                                        .build();
                db.write(List.of(m));
                if (i % 10 == 0) {
                    for (ChangeStream cs : emulator.database().changeStreams()) {
                        cs.churnRandomly();
                    }
                }
            }
            Instant end = Instant.now();

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            SpannerChangeStreamSource<ChangeEvent> source =
                    EmulatorSources.builder(emulator, stream, start, end)
                            .setPerKeyOrdering(perKeyOrdering)
                            .build();
            List<ChangeEvent> events = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .executeAndCollect(
                                    "bounded read of " + stream + ", order " + perKeyOrdering)) {
                it.forEachRemaining(events::add);
            }

            List<String> expected =
                    GroundTruth.expected(
                            emulator.database(),
                            stream,
                            start.getEpochSecond() * 1_000_000L + start.getNano() / 1000,
                            end.getEpochSecond() * 1_000_000L + end.getNano() / 1000);
            List<String> actual = new ArrayList<>();
            events.forEach(e -> actual.add(GroundTruth.identity(e)));
            assertThat(actual).containsExactlyInAnyOrderElementsOf(expected);
        }
    }

    static Spanner client(SpannerEmulator emulator) {
        return SpannerOptions.newBuilder()
                .setProjectId(emulator.projectId())
                .setEmulatorHost(emulator.hostPort())
                .setCredentials(NoCredentials.getInstance())
                .build()
                .getService();
    }

    @Test
    void unknownStreamAndTooOldStartFailTheJobWithTheReason() {
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(DDL).start()) {
            Instant now = Instant.now();
            assertJobFailsWith(
                    EmulatorSources.builder(emulator, "nope", now, now).build(),
                    "Change stream nope does not exist in database");
            assertJobFailsWith(
                    EmulatorSources.builder(emulator, "legacy_cs", now.minusSeconds(3600), now)
                            .build(),
                    "Specified start_timestamp is too far in the past");
        }
    }

    private static void assertJobFailsWith(
            SpannerChangeStreamSource<ChangeEvent> source, String reason) {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> runToEnd(source))
                .satisfies(
                        e ->
                                assertThat(
                                                org.apache.flink.util.ExceptionUtils
                                                        .stringifyException(e))
                                        .contains(reason));
    }

    private static void runToEnd(SpannerChangeStreamSource<ChangeEvent> source) throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                .sinkTo(new org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink<>());
        env.execute("failing source");
    }

    @Test
    void buildNamesMissingAndMalformedOptions() {
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                SpannerChangeStreamSource.<ChangeEvent>builder()
                                        .setProjectId("p")
                                        .setChangeStream("bad-name")
                                        .setHeartbeatInterval(java.time.Duration.ofMillis(10))
                                        .setEmulatorHost("nohostport")
                                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("instanceId is required")
                .hasMessageContaining("databaseId is required")
                .hasMessageContaining("changeStream 'bad-name'")
                .hasMessageContaining("heartbeatInterval")
                .hasMessageContaining("emulatorHost")
                .hasMessageContaining("deserializer is required");
    }
}
