package io.spannercs.flink.source;

import static org.assertj.core.api.Assertions.assertThat;

import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.changestream.ChangeStream;
import io.spannercs.emulator.schema.Dialect;
import io.spannercs.emulator.testing.EmulatorClients;
import io.spannercs.emulator.testing.RandomClientWrites;
import io.spannercs.flink.format.ChangeEvent;
import java.math.BigDecimal;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * PostgreSQL-dialect databases in both partition modes: the source finds the dialect and the mode
 * by itself, reads with {@code spanner.read_proto_bytes_<stream>} or {@code
 * spanner.read_json_<stream>}, and a bounded job under churn emits exactly the emulator's ground
 * truth, with PostgreSQL values (numeric, jsonb, arrays) typed as for GoogleSQL.
 */
@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
class PostgresDialectITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER = EmulatorSources.twoSlotCluster();

    private static final String DDL =
            RandomClientWrites.PG_TABLES
                    + "CREATE CHANGE STREAM mutable_cs FOR ALL WITH (partition_mode ="
                    + " 'MUTABLE_KEY_RANGE', value_capture_type = 'NEW_ROW');\n"
                    + "CREATE CHANGE STREAM legacy_cs FOR ALL;\n";

    @ParameterizedTest
    @ValueSource(strings = {"mutable_cs", "legacy_cs"})
    void readsEveryChangeOnce(String stream) throws Exception {
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder()
                                .dialect(Dialect.POSTGRESQL)
                                .ddl(DDL)
                                .initialPartitions(2)
                                .maxPartitions(6)
                                .seed(13)
                                .start();
                EmulatorClients clients = new EmulatorClients(emulator)) {
            Instant start = Instant.now();
            RandomClientWrites writes = new RandomClientWrites(21, 40, true);
            for (int i = 0; i < 200; i++) {
                writes.writeOne(clients.client());
                if (i % 15 == 0) {
                    for (ChangeStream cs : emulator.database().changeStreams()) {
                        cs.churnRandomly();
                    }
                }
            }
            Instant end = Instant.now();

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            SpannerChangeStreamSource<ChangeEvent> source =
                    EmulatorSources.builder(emulator, stream, start, end).build();
            List<ChangeEvent> events = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(source, WatermarkStrategy.noWatermarks(), "spanner")
                            .executeAndCollect("PostgreSQL " + stream)) {
                it.forEachRemaining(events::add);
            }

            List<String> expected =
                    GroundTruth.expected(
                            emulator.database(),
                            stream,
                            EmulatorSources.micros(start),
                            EmulatorSources.micros(end));
            List<String> actual = new ArrayList<>();
            events.forEach(e -> actual.add(GroundTruth.identity(e)));
            assertThat(expected).hasSizeGreaterThan(150);
            assertThat(actual)
                    .doesNotHaveDuplicates()
                    .containsExactlyInAnyOrderElementsOf(expected);
            // PostgreSQL numeric and jsonb arrive typed like NUMERIC and JSON.
            assertThat(events)
                    .filteredOn(e -> e.getNewValues().get("price") != null)
                    .isNotEmpty()
                    .allSatisfy(
                            e ->
                                    assertThat(e.getNewValues().get("price"))
                                            .isInstanceOfAny(BigDecimal.class, Double.class));
        }
    }
}
