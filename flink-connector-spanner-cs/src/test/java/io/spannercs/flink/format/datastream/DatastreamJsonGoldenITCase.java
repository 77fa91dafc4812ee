package io.spannercs.flink.format.datastream;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.cloud.NoCredentials;
import com.google.cloud.spanner.DatabaseClient;
import com.google.cloud.spanner.DatabaseId;
import com.google.cloud.spanner.Key;
import com.google.cloud.spanner.Mutation;
import com.google.cloud.spanner.Options;
import com.google.cloud.spanner.Spanner;
import com.google.cloud.spanner.SpannerOptions;
import com.google.protobuf.ListValue;
import com.google.spanner.v1.KeySet;
import io.spannercs.emulator.SpannerEmulator;
import io.spannercs.emulator.storage.CommittedTransaction;
import io.spannercs.flink.source.SpannerChangeStreamSource;
import io.spannercs.flink.source.spanner.SpannerColumnTypes;
import io.spannercs.flink.testing.AllTypesTable;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.runtime.testutils.MiniClusterResourceConfiguration;
import org.apache.flink.shaded.jackson2.com.fasterxml.jackson.databind.JsonNode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.test.junit5.MiniClusterExtension;
import org.apache.flink.util.CloseableIterator;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Datastream's INSERT, UPDATE, DELETE example flow, reproduced on a Spanner table through the real
 * source on the emulator, under each value capture type and in both partition modes: the JSON the
 * source emits must match {@code datastream/golden/<capture type>.json} field by field.
 *
 * <p>The writes are fixed, so everything but times and partition tokens is the same on every run
 * (the emulator numbers transactions from 1). Fields that vary are markers in the expected files,
 * each checked by a rule here: commit timestamps against the emulator's ground truth, the read time
 * against the run's clock. Both partition modes must give the same events.
 *
 * <p>The deserializer turns changes into JSON inside the source, so no {@code ChangeEvent} with
 * ARRAY values crosses the network (Kryo cannot copy their unmodifiable lists).
 */
@org.junit.jupiter.api.Timeout(value = 4, unit = java.util.concurrent.TimeUnit.MINUTES)
public class DatastreamJsonGoldenITCase {
    @RegisterExtension
    static final MiniClusterExtension MINI_CLUSTER =
            new MiniClusterExtension(
                    new MiniClusterResourceConfiguration.Builder()
                            .setNumberTaskManagers(1)
                            .setNumberSlotsPerTaskManager(1)
                            .build());

    private static final List<String> CAPTURE_TYPES =
            List.of("NEW_ROW", "NEW_ROW_AND_OLD_VALUES", "OLD_AND_NEW_VALUES", "NEW_VALUES");

    /** The tables of the flow: Datastream's example table and one of every type. */
    public static final String TABLES =
            "CREATE TABLE SAMPLE (THIS_IS_MY_PK INT64 NOT NULL, FIELD1 STRING(MAX),"
                    + " FIELD2 STRING(MAX) NOT NULL) PRIMARY KEY (THIS_IS_MY_PK);\n"
                    + AllTypesTable.DDL;

    private static final DateTimeFormatter MICROS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);
    private static final DateTimeFormatter MILLIS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    @ParameterizedTest
    @ValueSource(strings = {"MUTABLE_KEY_RANGE", "IMMUTABLE_KEY_RANGE"})
    void theReferenceFlowAndEveryTypeMatchTheExpectedEvents(String partitionMode) throws Exception {
        StringBuilder ddl = new StringBuilder(TABLES);
        for (String capture : CAPTURE_TYPES) {
            ddl.append("CREATE CHANGE STREAM cs_")
                    .append(capture.toLowerCase(java.util.Locale.ROOT))
                    .append(" FOR ALL OPTIONS (partition_mode = '")
                    .append(partitionMode)
                    .append("', value_capture_type = '")
                    .append(capture)
                    .append("');\n");
        }
        try (SpannerEmulator emulator =
                        SpannerEmulator.builder().ddl(ddl.toString()).initialPartitions(1).start();
                Spanner spanner = client(emulator)) {
            DatabaseClient db =
                    spanner.getDatabaseClient(
                            DatabaseId.of(
                                    emulator.projectId(),
                                    emulator.instanceId(),
                                    emulator.databaseId()));
            Map<String, Map<String, String>> columnTypes = SpannerColumnTypes.read(db);
            assertThat(columnTypes).containsOnlyKeys("SAMPLE", "AllTypes");
            assertThat(columnTypes.get("AllTypes"))
                    .containsEntry("JsonCol", "JSON")
                    .containsEntry("StringArray", "ARRAY<STRING(MAX)>");

            Instant start = Instant.now();
            writeTheFlow(db, emulator);
            Instant end = Instant.now();

            Instant jobStart = Instant.now();
            List<String> jsons = runJob(emulator, columnTypes, start, end);
            Instant jobEnd = Instant.now();

            Map<String, Long> commitMicros = new HashMap<>();
            for (CommittedTransaction t : emulator.database().groundTruth()) {
                commitMicros.put(t.serverTransactionId(), t.commitMicros());
            }
            Map<String, List<JsonNode>> byStream = new LinkedHashMap<>();
            for (String json : jsons) {
                JsonNode event = GoldenJson.parse(json);
                byStream.computeIfAbsent(
                                event.get("source_metadata").get("change_stream_name").textValue(),
                                s -> new ArrayList<>())
                        .add(event);
            }
            assertThat(byStream.keySet())
                    .containsExactlyInAnyOrder(
                            CAPTURE_TYPES.stream()
                                    .map(c -> "cs_" + c.toLowerCase(java.util.Locale.ROOT))
                                    .toArray(String[]::new));
            for (String capture : CAPTURE_TYPES) {
                List<JsonNode> events =
                        new ArrayList<>(
                                byStream.get("cs_" + capture.toLowerCase(java.util.Locale.ROOT)));
                events.sort((a, b) -> SortKeysTest.compareSortKeys(sortKeys(a), sortKeys(b)));
                JsonNode expected = GoldenJson.resource("/datastream/golden/" + capture + ".json");
                assertThat(events).as(capture).hasSize(expected.size());
                for (int i = 0; i < events.size(); i++) {
                    JsonNode actual = events.get(i);
                    long micros =
                            commitMicros.get(
                                    actual.get("source_metadata")
                                            .get("server_transaction_id")
                                            .textValue());
                    GoldenJson.assertMatches(
                            actual, expected.get(i), rules(micros, jobStart, jobEnd));
                    assertRoundTrip(actual, columnTypes);
                }
            }
        }
    }

    /** The writes, one transaction each unless said; the Debezium golden test makes them too. */
    public static void writeTheFlow(DatabaseClient db, SpannerEmulator emulator) {
        // Datastream's example: INSERT at T0, FIELD1 set to NULL at T1, DELETE at T2.
        db.writeWithOptions(
                List.of(
                        Mutation.newInsertBuilder("SAMPLE")
                                .set("THIS_IS_MY_PK")
                                .to(1231535353L)
                                .set("FIELD1")
                                .to("foo")
                                .set("FIELD2")
                                .to("TLV")
                                .build()),
                Options.tag("app=golden"));
        db.write(
                List.of(
                        Mutation.newUpdateBuilder("SAMPLE")
                                .set("THIS_IS_MY_PK")
                                .to(1231535353L)
                                .set("FIELD1")
                                .to((String) null)
                                .build()));
        db.write(List.of(Mutation.delete("SAMPLE", Key.of(1231535353L))));

        // Every type, with the values JSON has no plain form for.
        db.write(List.of(AllTypesTable.edgeRow()));
        db.write(
                List.of(
                        Mutation.newUpdateBuilder("AllTypes")
                                .set("Id")
                                .to(AllTypesTable.ID)
                                .set("Float64Col")
                                .to(1.5)
                                .set("StringCol")
                                .to((String) null)
                                .build()));
        // One transaction, two tables: two records, the second with two mods.
        db.write(
                List.of(
                        Mutation.newInsertBuilder("SAMPLE")
                                .set("THIS_IS_MY_PK")
                                .to(1L)
                                .set("FIELD1")
                                .to("a")
                                .set("FIELD2")
                                .to("x")
                                .build(),
                        Mutation.newInsertBuilder("SAMPLE")
                                .set("THIS_IS_MY_PK")
                                .to(2L)
                                .set("FIELD2")
                                .to("y")
                                .build(),
                        Mutation.newInsertBuilder("AllTypes").set("Id").to(7L).build()));
        // A system transaction (as a TTL delete is) deletes row 2.
        emulator.database().commitSystemTransaction(List.of(protoDelete("SAMPLE", "2")));
        db.write(List.of(Mutation.delete("AllTypes", Key.of(AllTypesTable.ID))));
    }

    /** A delete in the emulator's own terms: the client cannot commit system transactions. */
    private static com.google.spanner.v1.Mutation protoDelete(String table, String int64Key) {
        ListValue key =
                ListValue.newBuilder()
                        .addValues(com.google.protobuf.Value.newBuilder().setStringValue(int64Key))
                        .build();
        return com.google.spanner.v1.Mutation.newBuilder()
                .setDelete(
                        com.google.spanner.v1.Mutation.Delete.newBuilder()
                                .setTable(table)
                                .setKeySet(KeySet.newBuilder().addKeys(key)))
                .build();
    }

    /** One bounded job reading all four streams, each turned into JSON inside its source. */
    private static List<String> runJob(
            SpannerEmulator emulator,
            Map<String, Map<String, String>> columnTypes,
            Instant start,
            Instant end)
            throws Exception {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        DataStream<String> all = null;
        for (String capture : CAPTURE_TYPES) {
            String stream = "cs_" + capture.toLowerCase(java.util.Locale.ROOT);
            DatastreamContext context =
                    DatastreamContext.builder(
                                    emulator.projectId(),
                                    emulator.instanceId(),
                                    emulator.databaseId(),
                                    stream)
                            .columnTypes(columnTypes)
                            .includeOldValues(true)
                            .build();
            SpannerChangeStreamSource<String> source =
                    SpannerChangeStreamSource.<String>builder()
                            .setProjectId(emulator.projectId())
                            .setInstanceId(emulator.instanceId())
                            .setDatabaseId(emulator.databaseId())
                            .setChangeStream(stream)
                            .setStartTimestamp(start)
                            .setEndTimestamp(end)
                            .setHeartbeatInterval(Duration.ofMillis(100))
                            .setEmulatorHost(emulator.hostPort())
                            .setDeserializer(DatastreamJson.deserializer(context))
                            .build();
            DataStream<String> s = env.fromSource(source, WatermarkStrategy.noWatermarks(), stream);
            all = all == null ? s : all.union(s);
        }
        List<String> out = new ArrayList<>();
        try (CloseableIterator<String> it = all.executeAndCollect("datastream json golden")) {
            it.forEachRemaining(out::add);
        }
        return out;
    }

    private static Map<String, BiConsumer<String, JsonNode>> rules(
            long commitMicros, Instant jobStart, Instant jobEnd) {
        Instant commit = Instant.EPOCH.plus(commitMicros, ChronoUnit.MICROS);
        Map<String, BiConsumer<String, JsonNode>> rules = new HashMap<>();
        rules.put(
                "commit_timestamp",
                (path, v) -> assertThat(v.textValue()).isEqualTo(MICROS.format(commit)));
        rules.put(
                "source_timestamp",
                (path, v) -> assertThat(v.textValue()).isEqualTo(MILLIS.format(commit)));
        rules.put(
                "commit_micros",
                (path, v) ->
                        assertThat(v.isIntegralNumber() ? v.longValue() : null)
                                .isEqualTo(commitMicros));
        rules.put(
                "read_timestamp",
                (path, v) -> {
                    assertThat(v.textValue())
                            .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z");
                    assertThat(Instant.parse(v.textValue()))
                            .isAfterOrEqualTo(jobStart.truncatedTo(ChronoUnit.MILLIS))
                            .isBeforeOrEqualTo(jobEnd)
                            .isAfterOrEqualTo(commit.truncatedTo(ChronoUnit.MILLIS));
                });
        rules.put(
                "partition_token",
                (path, v) -> assertThat(v.isTextual() ? v.textValue() : "").isNotEmpty());
        return rules;
    }

    /** JSON to ChangeEvent and back gives the same JSON (read_timestamp aside). */
    private static void assertRoundTrip(JsonNode event, Map<String, Map<String, String>> types) {
        DatastreamContext context =
                DatastreamContext.builder(
                                event.get("source_metadata").get("project_id").textValue(),
                                event.get("source_metadata").get("instance_id").textValue(),
                                event.get("source_metadata").get("database_id").textValue(),
                                event.get("source_metadata").get("change_stream_name").textValue())
                        .columnTypes(types)
                        .includeOldValues(true)
                        .build();
        Instant readAt = Instant.parse(event.get("read_timestamp").textValue());
        String again =
                new DatastreamJsonSerializer(context, Clock.fixed(readAt, ZoneOffset.UTC))
                        .toJson(new DatastreamJsonDeserializer(context).fromJson(event.toString()));
        GoldenJson.assertMatches(GoldenJson.parse(again), event, Map.of());
    }

    private static List<Object> sortKeys(JsonNode event) {
        JsonNode k = event.get("sort_keys");
        return List.of(
                k.get(0).longValue(),
                k.get(1).textValue(),
                k.get(2).textValue(),
                k.get(3).longValue());
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
