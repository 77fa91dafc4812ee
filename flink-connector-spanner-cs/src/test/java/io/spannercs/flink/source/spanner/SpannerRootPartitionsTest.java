package io.spannercs.flink.source.spanner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.spanner.Dialect;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.source.NonRecoverableSourceException;
import io.spannercs.flink.source.TestConfigs;
import io.spannercs.flink.source.config.SpannerSourceConfig;
import io.spannercs.flink.source.config.SpannerSourceConfig.PartitionMode;
import io.spannercs.flink.source.split.PartitionReport.NewPartition;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The root query against the emulator, in both partition modes, and Spanner's errors. */
class SpannerRootPartitionsTest {
    private static final String DDL =
            "CREATE TABLE Orders (OrderId INT64 NOT NULL, Status STRING(MAX))"
                    + " PRIMARY KEY (OrderId);\n"
                    + "CREATE CHANGE STREAM mutable_cs FOR Orders OPTIONS (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE');\n"
                    + "CREATE CHANGE STREAM legacy_cs FOR Orders;\n";

    private static SpannerEmulator emulator;

    @BeforeAll
    static void startEmulator() {
        emulator = SpannerEmulator.builder().ddl(DDL).initialPartitions(3).start();
    }

    @AfterAll
    static void stopEmulator() {
        emulator.close();
    }

    private static SpannerSourceConfig config(String stream, long startMicros, long endMicros) {
        return config(stream, startMicros, endMicros, null);
    }

    private static SpannerSourceConfig config(
            String stream, long startMicros, long endMicros, PartitionMode mode) {
        return TestConfigs.config(
                TestConfigs.onEmulator(emulator, stream, startMicros, endMicros)
                        .setRpcPriority(SpannerSourceConfig.RpcPriority.LOW)
                        .setPartitionMode(mode));
    }

    private static long createdMicros(String stream) {
        return emulator.database().changeStream(stream).createdMicros();
    }

    @ParameterizedTest
    @ValueSource(strings = {"mutable_cs", "legacy_cs"})
    void listsTheLivePartitions(String stream) {
        long start = createdMicros(stream) + 1;
        try (SpannerRootPartitions root =
                new SpannerRootPartitions(config(stream, start, SpannerSourceConfig.NO_END))) {
            List<NewPartition> partitions = root.query(start);

            assertThat(partitions)
                    .extracting(NewPartition::token)
                    .containsExactlyInAnyOrderElementsOf(
                            emulator.database().changeStream(stream).liveTokens());
            assertThat(partitions)
                    .allSatisfy(
                            p -> {
                                assertThat(p.startMicros()).isEqualTo(start);
                                assertThat(p.parentTokens()).isEmpty();
                            });
        }
    }

    /** Detection finds no such stream in the information schema: a restart cannot help. */
    @Test
    void namesTheStreamTheDatabaseAndTheOptionForAnUnknownStream() {
        long start = createdMicros("mutable_cs") + 1;
        SpannerSourceConfig config = config("nope_cs", start, SpannerSourceConfig.NO_END);
        try (SpannerRootPartitions root = new SpannerRootPartitions(config)) {
            assertThatThrownBy(() -> root.query(start))
                    .isInstanceOf(NonRecoverableSourceException.class)
                    .hasMessageContaining(
                            "Change stream nope_cs does not exist in database "
                                    + config.databaseName())
                    .hasMessageContaining("it has ")
                    .hasMessageContaining("legacy_cs")
                    .hasMessageContaining("setChangeStream(...)")
                    .hasMessageContaining("'change-stream'");
        }
    }

    /** With the partition mode given nothing is detected: Spanner's answer to the query says it. */
    @Test
    void namesTheStreamTheDatabaseAndSpannersReasonForAnUnknownStreamNotDetected() {
        long start = createdMicros("mutable_cs") + 1;
        SpannerSourceConfig config =
                config(
                        "nope_cs",
                        start,
                        SpannerSourceConfig.NO_END,
                        PartitionMode.IMMUTABLE_KEY_RANGE);
        try (SpannerRootPartitions root = new SpannerRootPartitions(config)) {
            assertThatThrownBy(() -> root.query(start))
                    .isInstanceOf(NonRecoverableSourceException.class)
                    .hasMessageContaining("change stream nope_cs")
                    .hasMessageContaining(config.databaseName())
                    .hasMessageContaining("INVALID_ARGUMENT")
                    .hasMessageContaining("Table-valued function not found: READ_nope_cs")
                    .hasMessageContaining("setChangeStream(...)");
        }
    }

    /** A transient error is not one of them: the job restarts, as before. */
    @Test
    void aTransientErrorIsNotNonRecoverable() {
        long start = createdMicros("mutable_cs") + 1;
        emulator.faults().failRootQuery(io.grpc.Status.Code.INTERNAL, Integer.MAX_VALUE);
        try (SpannerRootPartitions root =
                new SpannerRootPartitions(
                        config("mutable_cs", start, SpannerSourceConfig.NO_END))) {
            assertThatThrownBy(() -> root.query(start))
                    .isNotInstanceOf(NonRecoverableSourceException.class)
                    .hasMessageContaining("INTERNAL")
                    .satisfies(
                            e ->
                                    assertThat(
                                                    org.apache.flink.runtime.executiongraph.failover
                                                            .ExecutionFailureHandler
                                                            .isUnrecoverableError(e))
                                            .isFalse());
        } finally {
            emulator.faults().clear();
        }
    }

    @Test
    void reportsAStartTooFarInThePast() {
        long start = createdMicros("legacy_cs") - 60_000_000;
        SpannerSourceConfig config = config("legacy_cs", start, SpannerSourceConfig.NO_END);
        try (SpannerRootPartitions root = new SpannerRootPartitions(config)) {
            assertThatThrownBy(() -> root.query(start))
                    .isInstanceOf(NonRecoverableSourceException.class)
                    .hasMessageContaining("change stream legacy_cs")
                    .hasMessageContaining(config.databaseName())
                    .hasMessageContaining("OUT_OF_RANGE")
                    .hasMessageContaining("Specified start_timestamp is too far in the past")
                    .hasMessageContaining("'scan.startup.timestamp'")
                    .hasMessageContaining("setStartTimestamp(...)");
        }
    }

    @Test
    void rejectsAStreamNameThatIsNotAnIdentifier() {
        for (String name : List.of("orders cs", "1cs", "cs;DROP TABLE Orders", "cs(", "")) {
            assertThatThrownBy(
                            () ->
                                    new SpannerRootPartitions(
                                            TestConfigs.withUncheckedStream(
                                                    config("cs", 0, 0), name)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("Invalid change stream name");
        }
        assertThat(
                        new ChangeStreamQuery(
                                        "Orders_cs2",
                                        Dialect.GOOGLE_STANDARD_SQL,
                                        PartitionMode.MUTABLE_KEY_RANGE)
                                .toString())
                .isEqualTo(
                        "SELECT ChangeRecord FROM READ_Orders_cs2(start_timestamp => @start,"
                                + " end_timestamp => @end, partition_token => @token,"
                                + " heartbeat_milliseconds => @heartbeat)");
        assertThat(
                        new ChangeStreamQuery(
                                        "orders_cs",
                                        Dialect.POSTGRESQL,
                                        PartitionMode.MUTABLE_KEY_RANGE)
                                .toString())
                .isEqualTo(
                        "SELECT * FROM \"spanner\".\"read_proto_bytes_orders_cs\"($1, $2, $3, $4,"
                                + " null)");
        assertThat(
                        new ChangeStreamQuery(
                                        "orders_cs",
                                        Dialect.POSTGRESQL,
                                        PartitionMode.IMMUTABLE_KEY_RANGE)
                                .toString())
                .isEqualTo(
                        "SELECT * FROM \"spanner\".\"read_json_orders_cs\"($1, $2, $3, $4, null)");
    }

    @Test
    void endsTheQueryOneWindowLaterOrAtTheSourcesEnd() {
        long start = 1_700_000_000_000_000L;
        long now = start + Duration.ofHours(2).toNanos() / 1000;
        long window = Duration.ofMinutes(30).toNanos() / 1000;
        assertThat(
                        SpannerRootPartitions.queryEndMicros(
                                start, config("cs", start, SpannerSourceConfig.NO_END), now))
                .isEqualTo(start + window);
        assertThat(
                        SpannerRootPartitions.queryEndMicros(
                                start, config("cs", start, start + 10), now))
                .isEqualTo(start + 10);
    }
}
