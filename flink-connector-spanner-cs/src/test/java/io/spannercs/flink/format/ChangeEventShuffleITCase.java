package io.spannercs.flink.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.cloud.ByteArray;
import com.google.cloud.Date;
import com.google.cloud.NoCredentials;
import com.google.cloud.Timestamp;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import com.google.cloud.spanner.Value;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.functions.MapFunction;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Change events with values of every Spanner type, ARRAYs with NULL elements among them, cross a
 * network shuffle and the collect sink intact (with Kryo, ARRAY values failed to deserialize). A
 * map function's extracted output type serializes them the same way.
 */
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ChangeEventShuffleITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(2)
                            .build());

    private static final String DDL =
            "CREATE TABLE AllTypes (Id INT64 NOT NULL, F FLOAT64, F32 FLOAT32, N NUMERIC, B BOOL,"
                    + " S STRING(MAX), BY BYTES(MAX), D DATE, TS TIMESTAMP, J JSON,"
                    + " AI ARRAY<INT64>, AF ARRAY<FLOAT64>, AN ARRAY<NUMERIC>, AB ARRAY<BOOL>,"
                    + " ASTR ARRAY<STRING(MAX)>, ABY ARRAY<BYTES(MAX)>, AD ARRAY<DATE>,"
                    + " ATS ARRAY<TIMESTAMP>) PRIMARY KEY (Id);\n"
                    + "CREATE CHANGE STREAM cs FOR ALL;\n";

    @Test
    void eventsWithEveryValueTypeSurviveAShuffle() throws Exception {
        try (SpannerEmulator emulator = SpannerEmulator.builder().ddl(DDL).start();
                Spanner spanner = client(emulator)) {
            DatabaseClient db =
                    spanner.getDatabaseClient(
                            DatabaseId.of(
                                    emulator.projectId(),
                                    emulator.instanceId(),
                                    emulator.databaseId()));
            Instant start = Instant.now();
            db.write(List.of(everyType(1)));
            db.write(
                    List.of(
                            Mutation.newInsertBuilder("AllTypes")
                                    .set("Id")
                                    .to(2L)
                                    .set("AI")
                                    .toInt64Array(List.of())
                                    .set("ASTR")
                                    .toStringArray(null)
                                    .build()));
            db.write(
                    List.of(
                            Mutation.newUpdateBuilder("AllTypes")
                                    .set("Id")
                                    .to(1L)
                                    .set("AI")
                                    .toInt64Array(List.of(7L))
                                    .build()));
            Instant end = Instant.now();

            StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
            env.setParallelism(2);
            List<ChangeEvent> events = new ArrayList<>();
            try (CloseableIterator<ChangeEvent> it =
                    env.fromSource(
                                    source(emulator, start, end),
                                    WatermarkStrategy.noWatermarks(),
                                    "s")
                            .map(new Identity())
                            .rebalance()
                            .executeAndCollect("change events across a shuffle")) {
                it.forEachRemaining(events::add);
            }
            events.sort(Comparator.comparing(ChangeEvent::getCommitTimestamp));

            assertThat(events).hasSize(3);
            Map<String, Object> row1 = events.get(0).getNewValues();
            assertThat(events.get(0).getKeys()).containsExactly(Map.entry("Id", 1L));
            assertThat(row1.get("F")).isEqualTo(Double.NaN);
            assertThat(row1.get("F32")).isEqualTo(1.5f);
            assertThat(row1.get("N")).isEqualTo(new BigDecimal("-123.456789012"));
            assertThat(row1.get("B")).isEqualTo(true);
            assertThat(row1.get("S")).isEqualTo("héllo");
            assertThat((byte[]) row1.get("BY")).containsExactly(0, 1, -1);
            assertThat(row1.get("D")).isEqualTo(LocalDate.of(2024, 2, 29));
            assertThat(row1.get("TS"))
                    .isEqualTo(Instant.ofEpochSecond(1_700_000_000L, 123_456_789));
            assertThat(row1.get("J")).isEqualTo("{\"a\":1}");
            assertThat(row1.get("AI")).isEqualTo(Arrays.asList(1L, null, Long.MIN_VALUE));
            assertThat(row1.get("AF"))
                    .isEqualTo(Arrays.asList(Double.NaN, null, Double.NEGATIVE_INFINITY));
            assertThat(row1.get("AN")).isEqualTo(Arrays.asList(new BigDecimal("1.5"), null));
            assertThat(row1.get("AB")).isEqualTo(Arrays.asList(true, null));
            assertThat(row1.get("ASTR")).isEqualTo(Arrays.asList("x", null));
            List<?> bytes = (List<?>) row1.get("ABY");
            assertThat((byte[]) bytes.get(0)).containsExactly('a', 'b');
            assertThat(bytes.get(1)).isNull();
            assertThat(row1.get("AD")).isEqualTo(Arrays.asList(LocalDate.of(1, 1, 1), null));
            assertThat(row1.get("ATS")).isEqualTo(Arrays.asList(Instant.ofEpochSecond(0, 1), null));
            assertThatThrownBy(() -> ((List<?>) row1.get("AI")).clear())
                    .isInstanceOf(UnsupportedOperationException.class);

            assertThat(events.get(1).getNewValues())
                    .containsEntry("AI", List.of())
                    .containsEntry("ASTR", null);
            assertThat(events.get(2).getChangeType()).isEqualTo(ChangeType.UPDATE);
            assertThat(events.get(2).getOldValues())
                    .containsEntry("AI", Arrays.asList(1L, null, Long.MIN_VALUE));
            assertThat(events.get(2).getNewValues()).containsEntry("AI", List.of(7L));
        }
    }

    private static Mutation everyType(long id) {
        return Mutation.newInsertBuilder("AllTypes")
                .set("Id")
                .to(id)
                .set("F")
                .to(Double.NaN)
                .set("F32")
                .to(1.5f)
                .set("N")
                .to(new BigDecimal("-123.456789012"))
                .set("B")
                .to(true)
                .set("S")
                .to("héllo")
                .set("BY")
                .to(ByteArray.copyFrom(new byte[] {0, 1, -1}))
                .set("D")
                .to(Date.fromYearMonthDay(2024, 2, 29))
                .set("TS")
                .to(Timestamp.ofTimeSecondsAndNanos(1_700_000_000L, 123_456_789))
                .set("J")
                .to(Value.json("{\"a\":1}"))
                .set("AI")
                .toInt64Array(Arrays.asList(1L, null, Long.MIN_VALUE))
                .set("AF")
                .toFloat64Array(Arrays.asList(Double.NaN, null, Double.NEGATIVE_INFINITY))
                .set("AN")
                .toNumericArray(Arrays.asList(new BigDecimal("1.5"), null))
                .set("AB")
                .toBoolArray(Arrays.asList(true, null))
                .set("ASTR")
                .toStringArray(Arrays.asList("x", null))
                .set("ABY")
                .toBytesArray(Arrays.asList(ByteArray.copyFrom("ab"), null))
                .set("AD")
                .toDateArray(Arrays.asList(Date.fromYearMonthDay(1, 1, 1), null))
                .set("ATS")
                .toTimestampArray(Arrays.asList(Timestamp.ofTimeSecondsAndNanos(0, 1), null))
                .build();
    }

    /** Its output type comes from Flink's type extraction, not from the source. */
    private static final class Identity implements MapFunction<ChangeEvent, ChangeEvent> {
        @Override
        public ChangeEvent map(ChangeEvent e) {
            return e;
        }
    }

    private static SpannerChangeStreamSource<ChangeEvent> source(
            SpannerEmulator emulator, Instant start, Instant end) {
        return SpannerChangeStreamSource.<ChangeEvent>builder()
                .setProjectId(emulator.projectId())
                .setInstanceId(emulator.instanceId())
                .setDatabaseId(emulator.databaseId())
                .setChangeStream("cs")
                .setStartTimestamp(start)
                .setEndTimestamp(end)
                .setHeartbeatInterval(Duration.ofMillis(100))
                .setEmulatorHost(emulator.hostPort())
                .setDeserializer(ChangeEventDeserializer.changeEvents())
                .build();
    }

    private static Spanner client(SpannerEmulator emulator) {
        return SpannerOptions.newBuilder()
                .setProjectId(emulator.projectId())
                .setEmulatorHost(emulator.hostPort())
                .setCredentials(NoCredentials.getInstance())
                .build()
                .getService();
    }
}
